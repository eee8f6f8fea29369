import { schemas } from './schemas/index.js';

/** Rewrites our ajv-style `$ref: "Name"` into OpenAPI component references and drops `$id`. */
function toComponent(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponent);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === '$id') continue;
      out[k] = k === '$ref' && typeof v === 'string' && !v.startsWith('#') ? `#/components/schemas/${v}` : toComponent(v);
    }
    return out;
  }
  return value;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ 'application/json': { schema: ref(name) } });
const errorResponse = (description: string) => ({ description, content: json('Error') });

function queryParameters(): unknown[] {
  const query = schemas.find((s) => s.$id === 'FeedQuery')!;
  return Object.entries(query.properties).map(([name, schema]) => ({ name, in: 'query', required: false, schema: toComponent(schema) }));
}

/** The OpenAPI 3.1 document, generated from the same schemas ajv validates with. */
export function buildOpenApi(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Listing ingestion and directory service',
      version: '0.1.0',
      description: 'Feeds in (REAXML), one canonical listing model out. Validation issue codes are listed in docs/issue-codes.md.',
    },
    paths: {
      '/healthz': {
        get: { summary: 'Liveness', responses: { 200: { description: 'The process answers', content: json('Health') } } },
      },
      '/readyz': {
        get: {
          summary: 'Readiness: whether the database answers',
          responses: { 200: { description: 'Ready', content: json('Readiness') }, 503: { description: 'Database unavailable', content: json('Readiness') } },
        },
      },
      '/v1/validate': {
        post: {
          summary: 'Dry-run a feed: parse, map and validate without storing anything',
          description:
            'Send either the JSON feed request body, or the raw REAXML document as application/xml or text/xml with the context in query parameters. No key is needed.',
          parameters: queryParameters(),
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: ref('FeedRequest') },
              'application/xml': { schema: { type: 'string' } },
              'text/xml': { schema: { type: 'string' } },
            },
          },
          responses: {
            200: { description: 'Validation result with canonical previews', content: json('ValidationResult') },
            400: errorResponse('Invalid request, or a feed that is not well-formed, has a wrong root or no listings (the error names line and column)'),
            413: errorResponse('Body larger than FEED_MAX_BYTES'),
            415: errorResponse('Unsupported Content-Type'),
          },
        },
      },
      '/v1/openapi.json': {
        get: { summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1 document' } } },
      },
    },
    components: {
      schemas: Object.fromEntries(schemas.map((s) => [s.$id, toComponent(s)])),
    },
  };
}
