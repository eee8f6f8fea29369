import { objectSchema, requiredObject } from './object-schema.js';
/** parsed / valid / invalid, for listings and for projects. */
export const countsSchema = requiredObject({ parsed: { type: 'integer' }, valid: { type: 'integer' }, invalid: { type: 'integer' } });

export const issueSchema = objectSchema('Issue', {
  level: { enum: ['error', 'warning'] },
  code: { type: 'string', pattern: '^[a-z][a-z0-9_]*$', description: 'Stable lower_snake_case code; see docs/issue-codes.md.' },
  message: { type: 'string' },
  listingIndex: { type: ['integer', 'null'], minimum: 0, description: '0-based position of the listing in the feed; null for issues outside any listing.' },
  uniqueId: { type: ['string', 'null'] },
  path: {
    type: 'string',
    description:
      'REAXML: XPath-like with 1-based positions, e.g. /propertyList/residential[3]/address/postcode[1]. RESO and project documents: JSON Pointer, e.g. /value/3/ListPrice.',
  },
});

export const validationResultSchema = objectSchema(
  'ValidationResult',
  {
    ok: { type: 'boolean', description: 'true when no listing is invalid and no error issue was raised.' },
    counts: countsSchema,
    truncated: {
      const: true,
      description:
        'Present when the answer leaves out previews past the first VALIDATE_MAX_PREVIEWS (1000) or issues past the first VALIDATE_MAX_ISSUES (10000); ok and counts still cover the whole feed.',
    },
    issues: { type: 'array', items: { $ref: 'Issue' } },
    listings: { type: 'array', items: { $ref: 'Listing' }, description: 'Canonical listing previews: what would be stored.' },
    projects: requiredObject(
      {
        counts: countsSchema,
        previews: { type: 'array', items: { $ref: 'Project' } },
      },
      { description: 'Project feeds: project counts and canonical project previews.' },
    ),
  },
  { required: ['ok', 'counts', 'issues', 'listings'] },
);
