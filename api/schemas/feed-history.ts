/** Schemas of a key's own feed history: GET /v1/feeds and GET /v1/feeds/{feedId}/issues (docs/ingestion.md). */

import { FEED_OUTCOMES } from '../../lib/feed-outcome.js';
import { feedErrorProperty, feedHeadProperties, feedHeadRequired, feedRunProperties, feedRunRequired } from './feed-fields.js';
import { summary } from './ingestion.js';
import { objectSchema, requiredObject } from './object-schema.js';
import { adminLimitParam as limit, limitParam, offsetParam as offset, offsetPageSchema } from './paging.js';
import { countsSchema } from './validation-result.js';

const outcome = {
  enum: [...FEED_OUTCOMES],
  description:
    "What became of the feed: ok (every listing stored), with_invalid (some listings refused: see its issues), not_well_formed (the feed could not be read to its end; listings before the fault were applied, nothing was archived), tripped (the circuit breaker held a full feed's archive for an operator's review), failed (ingestion gave up; an operator can run it again), rejected (refused before it was read); queued or running while it is read.",
} as const;
const status = { enum: ['queued', 'running', 'done', 'failed', 'rejected'] } as const;

/** One outcome or several separated by commas, e.g. the feeds that need a look. */
export const outcomeListParam = {
  type: 'string',
  pattern: `^(${FEED_OUTCOMES.join('|')})(,(${FEED_OUTCOMES.join('|')}))*$`,
  description: `Only feeds with one of these outcomes, separated by commas (${FEED_OUTCOMES.join(', ')}); with_invalid,not_well_formed,tripped,failed are the feeds that need a look.`,
  examples: ['with_invalid,not_well_formed,tripped,failed'],
} as const;

export const feedHistoryQuerySchema = {
  $id: 'FeedHistoryQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { ...status, description: 'Only feeds with this status.' },
    outcome: outcomeListParam,
    limit,
    offset,
  },
} as const;

export const feedSummarySchema = {
  $id: 'FeedSummary',
  type: 'object',
  required: [...feedHeadRequired, ...feedRunRequired, 'counts', 'summary', 'reconcile', 'issueCounts', 'error', 'statusUrl'],
  properties: {
    ...feedHeadProperties({ status: { ...status }, outcome, format: { enum: ['reaxml', 'reso', 'project'] } as const }),
    ...feedRunProperties,
    counts: { oneOf: [countsSchema, { type: 'null' }], description: 'Listings read, valid and invalid (null until done).' },
    summary: { oneOf: [summary, { type: 'null' }], description: 'What became of the valid listings (null until done).' },
    reconcile: { enum: ['applied', 'tripped', 'skipped', null], description: 'mode=full: whether the archive of what the feed no longer carries was applied.' },
    issueCounts: {
      type: 'object',
      required: ['errors', 'warnings'],
      properties: { errors: { type: 'integer' }, warnings: { type: 'integer' } },
      description: 'The feed’s issues by level; list them at statusUrl + /issues.',
    },
    error: feedErrorProperty,
    statusUrl: { type: 'string', description: 'The feed’s own status: GET /v1/feeds/{feedId}.' },
  },
} as const;

export const feedHistoryPageSchema = offsetPageSchema('FeedHistoryPage', 'feeds', { $ref: 'FeedSummary' }, 'Feeds matching the filters.');

export const feedIssueQuerySchema = {
  $id: 'FeedIssueQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    level: { enum: ['error', 'warning'], description: 'Only errors or only warnings.' },
    code: { type: 'string', pattern: '^[a-z][a-z0-9_]*$', maxLength: 80, description: 'Only issues with this code (docs/issue-codes.md lists them).' },
    limit: limitParam(1000, 100),
    offset,
  },
} as const;

export const feedIssuePageSchema = objectSchema('FeedIssuePage', {
  feedId: { type: 'string', format: 'uuid' },
  status: { ...status, description: 'The feed’s status: a feed not yet done has no issues yet.' },
  total: { type: 'integer', description: 'Issues matching the filters.' },
  counts: requiredObject(
    {
      errors: { type: 'integer' },
      warnings: { type: 'integer' },
      byCode: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Code → how many.' },
    },
    { description: 'Over all the feed’s issues, whatever the filters.' },
  ),
  issues: {
    type: 'array',
    items: {
      allOf: [
        { $ref: 'Issue' },
        requiredObject({
          number: { type: 'integer', minimum: 1, description: 'The issue’s place among all the feed’s issues, from 1, whatever the filters.' },
        }),
      ],
    },
  },
  nextOffset: { type: ['integer', 'null'] },
});

/** GET /v1/feeds/listings/{office}/{uniqueId}: an office's listing as its owner sees it. */
export const listingStatusSchema = objectSchema('ListingStatus', {
  enquiries: requiredObject(
    { last7Days: { type: 'integer', minimum: 0 }, last30Days: { type: 'integer', minimum: 0 } },
    { description: 'Enquiries (leads) consumers sent about it in the last 7 and 30 days, up to now, whatever became of their delivery.' },
  ),
  listing: {
    oneOf: [{ $ref: 'Listing' }, { type: 'null' }],
    description: 'The stored record in full, including what the agent withholds from the public; null when no feed has sent it valid.',
  },
  public: requiredObject({
    readable: { type: 'boolean', description: 'GET /v1/listings/{office}/{uniqueId} answers it (on the market, sold or leased, and shown).' },
    inSearch: { type: 'boolean', description: 'The default search (on the market) lists it.' },
    reason: {
      enum: ['hidden_by_operator', 'withheld_by_source', 'sold', 'leased', 'withdrawn', 'off_market', 'archived', 'never_valid', null],
      description:
        'Why the default search does not list it (null: it does): an operator hid it; its source withholds it from the internet; sold or leased (still readable); withdrawn or taken off the market by its feed; archived because a full feed of its office no longer carried it; never sent valid.',
    },
    explanation: { type: ['string', 'null'], description: 'The reason in a plain sentence.' },
  }),
  quarantine: {
    oneOf: [
      requiredObject({
        id: { type: 'string', format: 'uuid' },
        feedId: { type: 'string', format: 'uuid' },
        createdAt: { type: 'string', format: 'date-time' },
      }),
      { type: 'null' },
    ],
    description:
      "A full feed would have archived this listing, but the circuit breaker held that archive for an operator's review (the listing stays as it is meanwhile); null when no review is open.",
  },
  lastFeed: {
    oneOf: [
      requiredObject({
        feedId: { type: 'string', format: 'uuid' },
        source: { enum: ['api', 'sftp'] },
        mode: { enum: ['full', 'incremental'] },
        createdAt: { type: 'string', format: 'date-time' },
        outcome,
        action: {
          enum: ['inserted', 'updated', 'unchanged', 'stale_ignored', 'refused'],
          description: 'What that feed did with the listing; refused: its errors kept it out (see issues).',
        },
        issues: { type: 'array', items: { $ref: 'Issue' }, description: 'That feed’s issues for this listing, in feed order.' },
      }),
      { type: 'null' },
    ],
    description: 'The newest finished feed of the office that carried the listing, valid or not (among the office’s last 500 feeds).',
  },
});

export const feedHistorySchemas = [
  feedHistoryQuerySchema,
  feedSummarySchema,
  feedHistoryPageSchema,
  feedIssueQuerySchema,
  feedIssuePageSchema,
  listingStatusSchema,
];
