/** Schemas of feed keys, ingestion results, feed status and quarantine (docs/architecture.md, Ingestion). */

import { QUARANTINE_SORTS } from '../../db/sort-order.js';
import { FEED_OUTCOMES } from '../../lib/feed-outcome.js';
import { feedErrorProperty, feedHeadProperties, feedHeadRequired, feedRunProperties, feedRunRequired } from './feed-fields.js';
import { objectSchema, requiredObject } from './object-schema.js';
import { adminLimitParam, offsetPageSchema, offsetParam, sortParam } from './paging.js';
import { countsSchema } from './validation-result.js';

const uuid = { type: 'string', format: 'uuid' } as const;
const officeIds = {
  type: 'array',
  minItems: 1,
  maxItems: 100,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
  description:
    "Source office ids (REAXML agentID, RESO ListOfficeKey) the key may push for: each 1 to 200 letters, digits, '.', '_', ':' or '-', starting with a letter or digit (surrounding spaces are trimmed).",
} as const;
const keyStatus = { enum: ['suspended', 'active', 'revoked'] } as const;

export const keyRequestSchema = objectSchema(
  'KeyRequest',
  {
    clientName: { type: 'string', minLength: 1, maxLength: 120, pattern: '\\S', description: 'Who integrates (CRM or agency name).' },
    alertEmail: { type: 'string', format: 'email', maxLength: 254, description: 'Receives feed-failure notifications.' },
    officeIds,
  },
  { additionalProperties: false },
);

export const keyCreatedSchema = objectSchema('KeyCreated', {
  id: uuid,
  key: { type: 'string', description: 'The feed key. Shown only in this response; the service keeps only its hash.' },
  status: keyStatus,
  officeIds: { type: 'array', items: { type: 'string' } },
});

export const whoAmISchema = objectSchema('WhoAmI', {
  keyId: uuid,
  clientName: { type: 'string' },
  officeIds: { type: 'array', items: { type: 'string' } },
  status: { enum: ['suspended', 'active'] },
});

export const feedKeySchema = objectSchema(
  'FeedKey',
  {
    id: uuid,
    clientName: { type: 'string' },
    alertEmail: { type: 'string' },
    officeIds: { type: 'array', items: { type: 'string' } },
    status: keyStatus,
    createdAt: { type: 'string', format: 'date-time' },
    approvedAt: { type: ['string', 'null'], format: 'date-time' },
    revokedAt: { type: ['string', 'null'], format: 'date-time' },
    lastUsedAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When the key last authenticated a request (recorded at most once a minute); null: never.',
    },
    lastFeed: {
      description: 'In the key list: the newest feed pushed with the key (null: none yet).',
      oneOf: [requiredObject({ feedId: uuid, createdAt: { type: 'string', format: 'date-time' }, outcome: { type: 'string' } }), { type: 'null' }],
    },
  },
  { required: ['id', 'clientName', 'alertEmail', 'officeIds', 'status', 'createdAt', 'approvedAt', 'revokedAt'] },
);

export const actions = { enum: ['inserted', 'updated', 'unchanged', 'stale_ignored'] } as const;
export const summary = requiredObject({
  inserted: { type: 'integer' },
  updated: { type: 'integer' },
  unchanged: { type: 'integer' },
  stale_ignored: { type: 'integer' },
});

export const ingestionResultSchema = objectSchema(
  'IngestionResult',
  {
    feedId: { ...uuid, description: 'The stored feed event (POST /v1/feeds answers carry it; GET /v1/feeds/{feedId} has the same result).' },
    ok: { type: 'boolean', description: 'true when the feed was read whole, no listing was invalid and no error issue was raised.' },
    counts: countsSchema,
    summary,
    upserts: {
      type: 'array',
      items: requiredObject({ listingKey: { type: 'string' }, action: actions }),
      description: 'One entry per valid listing, in feed order.',
    },
    statusChanges: {
      type: 'array',
      items: requiredObject({ listingKey: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } }),
      description:
        'Stored listings whose status this feed changed (e.g. active to sold, or to withdrawn), in feed order; archiving by a full feed is counted under reconcile instead.',
    },
    reconcile: {
      type: 'object',
      description: 'Present for mode=full. status: applied, tripped (the circuit breaker held an office back) or skipped (with reason).',
      required: ['status', 'archived', 'offices'],
      properties: {
        status: { enum: ['applied', 'tripped', 'skipped'] },
        reason: { type: 'string' },
        archived: { type: 'integer' },
        offices: {
          type: 'array',
          items: {
            type: 'object',
            required: ['office', 'present', 'nonArchived', 'absent', 'archived', 'tripped', 'quarantineId'],
            properties: {
              office: { type: 'string' },
              present: { type: 'integer', description: 'Listings of the office that appeared in the feed, valid or not.' },
              nonArchived: { type: 'integer', description: 'Non-archived listings of the office before the reconcile.' },
              absent: { type: 'integer', description: 'Non-archived listings that did not appear.' },
              archived: { type: 'integer' },
              tripped: { type: 'boolean' },
              quarantineId: { type: ['string', 'null'] },
              projects: requiredObject(
                { present: { type: 'integer' }, nonArchived: { type: 'integer' }, absent: { type: 'integer' }, archived: { type: 'integer' } },
                { description: "Project feeds: the figures for the office's projects (weighed with its project listings by the breaker)." },
              ),
            },
          },
        },
      },
    },
    projects: requiredObject(
      {
        counts: countsSchema,
        summary,
        upserts: {
          type: 'array',
          items: requiredObject({ projectKey: { type: 'string' }, action: actions }),
        },
      },
      { description: 'Project feeds: what happened to each valid project, in feed order.' },
    ),
    issues: { type: 'array', items: { $ref: 'Issue' } },
  },
  { required: ['ok', 'counts', 'summary', 'upserts', 'issues'] },
);

export const feedAcceptedSchema = objectSchema(
  'FeedAccepted',
  {
    feedId: uuid,
    status: { enum: ['queued', 'running', 'failed'] },
    statusUrl: { type: 'string', description: 'GET it with the same key until status is done or failed.' },
    retryAfter: { type: 'integer', description: 'queued or running: seconds to wait before the first poll (also the Retry-After header).' },
    error: { type: 'string' },
  },
  {
    required: ['feedId', 'status', 'statusUrl'],
    description:
      'The feed is stored: its outcome is at statusUrl. queued or running: not finished within FEED_SYNC_WAIT_MS (or the service is restarting, or the wait itself failed); failed: ingestion gave up after its retries (error says why, an operator can retry it).',
  },
);

/**
 * A 400 answer of POST /v1/feeds. Refused before anything was stored: error alone. The feed is not
 * well formed: it was stored and partly applied, so feedId and statusUrl say where it is.
 */
export const feedErrorSchema = objectSchema(
  'FeedError',
  {
    error: {
      type: 'string',
      description:
        'What is wrong. For a feed that is not well formed: where it stopped being readable; listings before the fault were applied, nothing was archived.',
    },
    feedId: { ...uuid, description: 'Present when the feed was stored (not well formed).' },
    statusUrl: {
      type: 'string',
      description: 'Present with feedId: the feed’s status and full result (also the Location header); its issues at statusUrl + /issues.',
    },
  },
  { required: ['error'] },
);

export const feedStatusSchema = {
  $id: 'FeedStatus',
  type: 'object',
  required: [...feedHeadRequired, 'bodySha256', ...feedRunRequired, 'progress', 'result', 'error'],
  properties: {
    ...feedHeadProperties({
      status: {
        enum: ['queued', 'running', 'done', 'failed', 'rejected'],
        description: 'done: result holds the ingestion result; failed: processing gave up (error says why); rejected: never queued.',
      } as const,
      outcome: {
        enum: [...FEED_OUTCOMES],
        description:
          "What became of the feed, in one word, as the feed list and the webhooks say it: queued or running while it is read; then ok (every listing stored), with_invalid (some refused), not_well_formed (unreadable past a point; what came before was applied), tripped (a full feed's archive held for review), failed (ingestion gave up) or rejected (refused before it was read).",
      } as const,
      format: { type: 'string' } as const,
    }),
    bodySha256: { type: 'string' },
    ...feedRunProperties,
    progress: {
      type: ['object', 'null'],
      description: 'While running: listings read so far, applied (valid, decided) and invalid.',
      required: ['parsed', 'applied', 'invalid'],
      properties: { parsed: { type: 'integer' }, applied: { type: 'integer' }, invalid: { type: 'integer' } },
    },
    result: { oneOf: [{ $ref: 'IngestionResult' }, { type: 'null' }] },
    error: feedErrorProperty,
  },
} as const;

/** The 200 answer of POST /v1/feeds: the ingestion result, always with its feedId. */
export const feedIngestedSchema = {
  $id: 'FeedIngested',
  allOf: [{ $ref: 'IngestionResult' }, requiredObject({ feedId: uuid })],
} as const;

/** One feed event as operators list it (GET /v1/admin/feeds). */
export const adminFeedSchema = objectSchema(
  'AdminFeed',
  {
    feedId: uuid,
    source: { type: 'string', enum: ['api', 'sftp'] },
    keyId: { type: ['string', 'null'], description: 'The key it was pushed with (null for an SFTP drop).' },
    clientName: { type: ['string', 'null'], description: 'The client name of that key (null for an SFTP drop).' },
    officeScope: { type: 'array', items: { type: 'string' } },
    format: { type: 'string', enum: ['reaxml', 'reso', 'project'] },
    mode: { type: 'string', enum: ['full', 'incremental'] },
    status: { type: 'string', enum: ['queued', 'running', 'done', 'failed', 'rejected'] },
    outcome: {
      type: 'string',
      enum: ['queued', 'running', 'ok', 'with_invalid', 'not_well_formed', 'tripped', 'failed', 'rejected'],
      description:
        "What became of the feed: ok (every listing stored), with_invalid (some refused), not_well_formed (the feed could not be read), tripped (the circuit breaker held a full feed's archive); failed, rejected; queued or running while it is read.",
    },
    needsLook: {
      type: 'boolean',
      description:
        'Whether it still needs an operator’s look: an outcome of with_invalid, not_well_formed, tripped or failed, except a tripped feed whose held archives have all been applied or reviewed.',
    },
    attempts: { type: 'integer' },
    bodyBytes: { type: 'integer' },
    createdAt: { type: 'string', format: 'date-time' },
    startedAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When a worker last started it (null: never yet); the time queued is startedAt - createdAt.',
    },
    finishedAt: { type: ['string', 'null'], format: 'date-time' },
    error: { type: ['string', 'null'], description: 'failed or rejected: why, as the integrator is told.' },
    errorDetail: { type: ['string', 'null'], description: 'The internal cause, for operators only.' },
    progress: { ...feedStatusSchema.properties.progress },
    ok: { type: ['boolean', 'null'] },
    counts: { oneOf: [countsSchema, { type: 'null' }] },
    summary: { oneOf: [summary, { type: 'null' }] },
    reconcile: { type: ['object', 'null'], description: 'As in the ingestion result (mode=full).' },
    issues: { type: 'array', items: { $ref: 'Issue' } },
  },
  {
    required: [
      'feedId',
      'source',
      'keyId',
      'officeScope',
      'format',
      'mode',
      'status',
      'outcome',
      'needsLook',
      'clientName',
      'attempts',
      'bodyBytes',
      'createdAt',
      'finishedAt',
      'error',
      'errorDetail',
      'progress',
      'ok',
      'counts',
      'summary',
      'reconcile',
      'issues',
    ],
  },
);

export const adminFeedPageSchema = objectSchema('AdminFeedPage', {
  total: { type: 'integer', description: 'Every feed event matching the filters.' },
  feeds: { type: 'array', items: { $ref: 'AdminFeed' }, description: 'Newest first.' },
});

export const quarantineItemSchema = objectSchema('QuarantineItem', {
  id: uuid,
  feedId: uuid,
  office: { type: 'string' },
  archiveCount: { type: 'integer', description: 'Listings the full feed would have archived.' },
  nonArchivedCount: { type: 'integer', description: 'Non-archived listings of the office at the time.' },
  keys: { type: 'array', items: { type: 'string' }, description: 'Listing keys that would have been archived.' },
  projectKeys: { type: 'array', items: { type: 'string' }, description: 'Project keys that would have been archived (project feeds).' },
  createdAt: { type: 'string', format: 'date-time' },
  resolved: { type: 'boolean' },
  resolvedAt: { type: ['string', 'null'], format: 'date-time' },
  resolution: { enum: ['reviewed', 'applied', null] },
  appliedCount: { type: ['integer', 'null'], description: 'Listings and projects archived by an apply.' },
});

export const resolveRequestSchema = {
  $id: 'ResolveRequest',
  type: 'object',
  additionalProperties: false,
  properties: { action: { enum: ['review', 'apply'], description: 'apply also performs the held archive for listings still absent and not written since.' } },
} as const;

export const quarantinePageSchema = offsetPageSchema('QuarantinePage', 'items', { $ref: 'QuarantineItem' }, 'Items matching the filter.');

export const quarantineQuerySchema = {
  $id: 'QuarantineQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    includeResolved: { enum: ['true', 'false'], description: 'true lists resolved items too; default false.' },
    sort: sortParam(QUARANTINE_SORTS, '-tripped', 'tripped: when the breaker tripped; office; archive: how many listings it would archive.'),
    limit: adminLimitParam,
    offset: offsetParam,
  },
} as const;

export interface KeyRequestBody {
  clientName: string;
  alertEmail: string;
  officeIds: string[];
}

export const dropSettingsRequestSchema = {
  $id: 'DropSettingsRequest',
  type: 'object',
  additionalProperties: false,
  description: "An office's context for feeds dropped over SFTP (its folder <root>/<office>/inbox/). Each value may be null: the service default.",
  properties: {
    currency: { type: ['string', 'null'], pattern: '^[A-Za-z]{3}$', description: "ISO-4217; null: the currency of each listing's country, with a warning." },
    country: { type: ['string', 'null'], pattern: '^[A-Za-z]{2}$', description: 'ISO-3166 alpha-2 fallback country; null: AU.' },
    locale: {
      type: ['string', 'null'],
      pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$',
      description: "Locale of the feed text; null: the country's usual one (en-AU for AU, en-US for US).",
    },
    alertEmail: { type: ['string', 'null'], format: 'email', maxLength: 254, description: 'Where feed-failure mails for dropped files go; null: none.' },
  },
} as const;

export const dropSettingsSchema = objectSchema('DropSettings', {
  office: { type: 'string' },
  currency: { type: ['string', 'null'] },
  country: { type: ['string', 'null'] },
  locale: { type: ['string', 'null'] },
  alertEmail: { type: ['string', 'null'] },
});
