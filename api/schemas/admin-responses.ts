/** What the operator API answers (docs/operators.md): one named schema per answer, so generated clients are typed. */

import { LEAD_STATUSES } from '../../db/leads.js';
import { LISTING_STATUSES } from '../../pipeline/listing-statuses.js';
import { leadDeliverySchema } from './leads.js';
import { objectSchema, requiredObject } from './object-schema.js';
import { offsetPageSchema } from './paging.js';

const uuid = { type: 'string', format: 'uuid' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
const countByKey = (description: string) => ({ type: 'object', additionalProperties: { type: 'integer' }, description }) as const;
const count = { type: 'integer', minimum: 0 } as const;
const listingStatus = { type: 'string', enum: [...LISTING_STATUSES] } as const;

export const operatorSessionSchema = objectSchema('OperatorSession', {
  expiresAt: { ...dateTime, description: 'When the browser session ends unless signed out or revoked first.' },
});

const queueCounts = requiredObject({ waiting: count, active: count, delayed: count, failed: count, completed: count }, { description: 'Jobs by state.' });

export const adminStatsSchema = objectSchema(
  'AdminStats',
  {
    listings: requiredObject({
      total: count,
      public: { ...count, description: 'Shown on the public reads.' },
      hidden: { ...count, description: 'Hidden by an operator.' },
      archived: count,
      byStatus: countByKey('Stored listings by status (active, under_offer, sold, leased, withdrawn, off_market, archived); a status with none is left out.'),
    }),
    directory: requiredObject({ agents: count, offices: count }),
    quarantine: requiredObject({ open: { ...count, description: 'Held full-feed archives awaiting review.' } }),
    feedKeys: requiredObject({ active: count, suspended: count }),
    leads: countByKey('Leads by status.'),
    blocklist: requiredObject({ entries: count }),
    feeds: {
      type: 'object',
      required: ['last24h', 'last7d'],
      description:
        'Feeds received in the last 24 hours and 7 days, and how many still need a look (outcome with_invalid, not_well_formed, tripped or failed, except tripped feeds whose held archives have all been applied or reviewed).',
      properties: Object.fromEntries(['last24h', 'last7d'].map((period) => [period, requiredObject({ total: count, problems: count })])),
    },
    queues: {
      description: 'Only when the service runs on Redis (REDIS_URL): job counts per queue, or the error reaching Redis.',
      oneOf: [
        {
          type: 'object',
          required: ['ingest', 'leadDelivery'],
          properties: { ingest: queueCounts, leadDelivery: queueCounts, webhookDelivery: queueCounts },
        },
        requiredObject({ error: { type: 'string' } }),
      ],
    },
  },
  { required: ['listings', 'directory', 'quarantine', 'feedKeys', 'leads', 'blocklist', 'feeds'] },
);

export const adminListingSchema = objectSchema('AdminListing', {
  listingKey: { type: 'string' },
  office: { type: 'string' },
  uniqueId: { type: 'string' },
  status: listingStatus,
  hidden: { type: 'boolean', description: 'Hidden by an operator.' },
  public: { type: 'boolean', description: 'Shown on the public reads now.' },
  modTime: { ...dateTime, description: 'The modification time the feed gave.' },
  updatedAt: { ...dateTime, description: 'When the service last wrote it.' },
  headline: { type: ['object', 'null'], additionalProperties: { type: 'string' }, description: 'Headline by locale.' },
  address: { oneOf: [{ $ref: 'Address' }, { type: 'null' }] },
});

export const adminListingPageSchema = objectSchema('AdminListingPage', {
  total: { ...count, description: 'Every listing matching the filters.' },
  listings: { type: 'array', items: { $ref: 'AdminListing' }, description: 'Most recently written first.' },
});

export const visibilityResultSchema = objectSchema('VisibilityResult', {
  listingKey: { type: 'string' },
  hidden: { type: 'boolean' },
  status: listingStatus,
});

export const feedRetriedSchema = objectSchema('FeedRetried', { feedId: uuid, status: { type: 'string', enum: ['queued'] } });

export const auditEntrySchema = objectSchema('AuditEntry', {
  id: { type: 'string', description: 'Increasing with time.' },
  at: dateTime,
  actor: { type: 'string', description: 'The operator token (by name) or feed key that acted.' },
  actorName: { type: ['string', 'null'], description: 'For a feed key (key:<id>): its client name, while the key exists.' },
  action: { type: 'string', description: 'What was done, e.g. key.create, listing.hide, feed.retry, site.page.update.' },
  target: { type: ['string', 'null'] },
  targetName: {
    type: ['string', 'null'],
    description:
      'What the target id names, for a person: a key’s client name, a webhook endpoint’s URL, the listing an enquiry was about, the office of a trip, the client and offices of a feed, a site page’s slug; null when the target needs no name or no longer exists.',
  },
  details: { type: ['object', 'null'], additionalProperties: true },
});

export const auditPageSchema = objectSchema('AuditPage', {
  total: count,
  entries: { type: 'array', items: { $ref: 'AuditEntry' }, description: 'Newest first.' },
});

export const siteSettingsSchema = objectSchema('SiteSettings', {
  settings: requiredObject({ identity: { type: 'object' }, seo: { type: 'object' }, favicon: { type: 'object' } }),
});

export const navigationSchema = objectSchema('Navigation', { navigation: { type: 'array', items: { $ref: 'NavLink' } } });

export const pageListSchema = objectSchema('PageList', { pages: { type: 'array', items: { $ref: 'Page' } } });

export const pageDeletedSchema = objectSchema('PageDeleted', { deleted: { ...uuid, description: 'The id of the page deleted.' } });

export const adminLeadSchema = objectSchema('AdminLead', {
  id: uuid,
  status: { type: 'string', enum: [...LEAD_STATUSES] },
  listing: requiredObject({ office: { type: 'string' }, uniqueId: { type: 'string' }, listingKey: { type: 'string' } }),
  contact: {
    type: 'object',
    description: 'What the consumer sent (email, message, name, phone); { erased: true } once purged after the retention period.',
    properties: { email: { type: 'string' }, message: { type: 'string' }, name: { type: 'string' }, phone: { type: 'string' }, erased: { type: 'boolean' } },
  },
  recipient: { type: ['string', 'null'], description: 'The address the lead is delivered to.' },
  recipientSource: { type: ['string', 'null'], description: 'agent (a listing agent), office (the office lead email), or null when dead-lettered.' },
  attempts: count,
  retries: { ...count, description: 'Operator retries.' },
  lastError: { type: ['string', 'null'] },
  createdAt: dateTime,
  deliveredAt: nullableDateTime,
  purgedAt: nullableDateTime,
  delivery: requiredObject(
    {
      mode: { ...leadDeliverySchema, description: `The office’s delivery choice when the lead arrived. ${leadDeliverySchema.description}` },
      fallbackAt: { ...nullableDateTime, description: 'On CRM delivery: when the mail goes unless a CRM acknowledges the lead first.' },
      fellBackAt: { ...nullableDateTime, description: 'On CRM delivery: when the mail was released because no CRM had acknowledged the lead.' },
      acknowledgedAt: { ...nullableDateTime, description: 'When a CRM acknowledged it (the first acknowledgement).' },
      webhooks: requiredObject({ pending: count, delivered: count, abandoned: count }, { description: 'Its lead.created events by state.' }),
    },
    { description: 'Each path’s state: the mail (status above), the CRM’s acknowledgement and the lead.created events.' },
  ),
});

export const adminLeadPageSchema = objectSchema('AdminLeadPage', {
  total: count,
  leads: { type: 'array', items: { $ref: 'AdminLead' }, description: 'Newest first.' },
});

export const leadRetriedSchema = objectSchema(
  'LeadRetried',
  {
    id: uuid,
    status: { type: 'string', enum: ['pending'] },
    recipient: { type: 'string', description: 'Where it is sent now (routed afresh: the first agent with an email, else the office’s lead email).' },
  },
  { required: ['id', 'status'] },
);

export const blockEntrySchema = objectSchema('BlockEntry', {
  id: uuid,
  kind: { type: 'string', enum: ['email', 'domain'] },
  value: { type: 'string', description: 'Lower-cased; a domain without a leading @ or trailing dot.' },
  reason: { type: ['string', 'null'] },
  createdAt: dateTime,
});

export const blocklistSchema = objectSchema('Blocklist', { entries: { type: 'array', items: { $ref: 'BlockEntry' }, description: 'Newest first.' } });

export const unblockedSchema = objectSchema('Unblocked', { removed: { $ref: 'BlockEntry' } });

export const officeOverviewSchema = objectSchema('OfficeOverview', {
  office: { type: 'string' },
  leadEmail: { type: ['string', 'null'], description: 'Where enquiries go when no agent of the listing has an email; null when none is set.' },
  leadDelivery: leadDeliverySchema,
  dropSettings: { $ref: 'DropSettings' },
  listingsByStatus: countByKey('Stored listings of the office by status.'),
  keys: {
    type: 'array',
    description: 'Feed keys whose scope includes the office, oldest first.',
    items: requiredObject({ id: uuid, clientName: { type: 'string' }, status: { type: 'string', enum: ['active', 'suspended', 'revoked'] } }),
  },
});

export const officeSettingsSchema = objectSchema('OfficeSettings', {
  office: { type: 'string' },
  leadEmail: { type: ['string', 'null'] },
  leadDelivery: leadDeliverySchema,
});

export const adminOfficePageSchema = offsetPageSchema(
  'AdminOfficePage',
  'offices',
  requiredObject({
    office: { type: 'string' },
    listings: requiredObject({ total: { type: 'integer' }, public: { type: 'integer' } }),
    leadEmail: { type: ['string', 'null'] },
    leadDelivery: leadDeliverySchema,
    dropSettings: { type: 'boolean', description: 'SFTP drop settings were saved for it (else the defaults apply).' },
    keys: {
      type: 'array',
      items: requiredObject({ id: { type: 'string' }, clientName: { type: 'string' }, status: { type: 'string' } }),
    },
    lastFeed: {
      oneOf: [
        requiredObject({ feedId: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' }, outcome: { type: 'string' } }),
        { type: 'null' },
      ],
    },
  }),
  'Offices matching q.',
);

export const heldListingPageSchema = offsetPageSchema(
  'HeldListingPage',
  'listings',
  requiredObject({
    listingKey: { type: 'string' },
    office: { type: 'string' },
    uniqueId: { type: 'string' },
    status: { type: ['string', 'null'], description: 'Its status now (null: no longer stored).' },
    headline: { type: ['string', 'null'] },
    writtenSince: { type: 'boolean', description: 'A later feed wrote it since the trip: applying the archive leaves it as it is.' },
  }),
  'Listings the trip would archive.',
);

export const feedKeyPageSchema = offsetPageSchema('FeedKeyPage', 'keys', { $ref: 'FeedKey' }, 'Keys matching the search.');

const counts = { type: 'object', additionalProperties: { type: 'integer' } } as const;

export const listingReviewSchema = {
  $id: 'ListingReview',
  description:
    'What the listing’s owner sees of it (GET /v1/feeds/listings/{office}/{uniqueId}: the record, whether the public sees it and why not, an open quarantine, the newest feed that carried it with its issues for it), plus when it was stored and its status history.',
  allOf: [
    { $ref: 'ListingStatus' },
    requiredObject({
      createdAt: { ...dateTime, description: 'When the service first stored it.' },
      updatedAt: { ...dateTime, description: 'When the service last changed it (a feed, or an operator hiding or showing it).' },
      statusHistory: {
        type: 'array',
        description: 'Status changes the office’s newest feeds made to it, oldest first.',
        items: requiredObject({ at: dateTime, from: { type: 'string' }, to: { type: 'string' }, feedId: uuid }),
      },
    }),
  ],
} as const;

export const leadRefusalsSchema = objectSchema('LeadRefusals', {
  days: { type: 'integer' },
  total: { type: 'integer', description: 'Enquiries refused before they became leads.' },
  byReason: { ...counts, description: 'unknown_listing, blocked, rate_limited, bot_check: how many of each.' },
  byDay: {
    type: 'array',
    items: requiredObject({ day: { type: 'string', format: 'date' }, reason: { type: 'string' }, count: { type: 'integer' } }),
  },
});

export const statsHistorySchema = objectSchema('StatsHistory', {
  days: {
    type: 'array',
    description: 'One entry per day (UTC), oldest first, days with nothing included.',
    items: requiredObject({
      day: { type: 'string', format: 'date' },
      feeds: { ...counts, description: 'Feeds received that day by outcome.' },
      listingsApplied: { type: 'integer', description: 'Listings the day’s feeds inserted or updated.' },
      listingsRead: { type: 'integer', description: 'Listings the day’s feeds carried.' },
      invalidPercent: { type: 'number', description: 'Invalid listings as a percentage of those read (0 when none were read).' },
      leads: { ...counts, description: 'Leads received that day by what became of them.' },
    }),
  },
  queueDepth: {
    type: 'array',
    description: 'Waiting jobs per queue, sampled each minute while the service runs with Redis (kept 7 days; empty without Redis).',
    items: requiredObject({ at: dateTime, ingest: { type: 'integer' }, leadDelivery: { type: 'integer' }, webhookDelivery: { type: 'integer' } }),
  },
});

const operatorTokenName = { type: 'string', description: 'The name it was made with (one active token per name).' } as const;

export const operatorTokenSchema = objectSchema('OperatorToken', {
  id: uuid,
  name: operatorTokenName,
  createdAt: dateTime,
  revokedAt: { ...nullableDateTime, description: 'Null while it opens the console and the admin API.' },
});

export const operatorTokenListSchema = {
  $id: 'OperatorTokenList',
  type: 'array',
  description: 'Every named token, revoked ones included, newest first (never the secrets).',
  items: { $ref: 'OperatorToken' },
} as const;

export const operatorTokenCreatedSchema = objectSchema('OperatorTokenCreated', {
  id: uuid,
  name: operatorTokenName,
  token: { type: 'string', description: 'The secret (lop_…). Shown only in this answer; the service keeps only its hash.' },
});

export const operatorTokenRevokedSchema = objectSchema('OperatorTokenRevoked', { revoked: { type: 'string', description: 'The name of the token revoked.' } });

export const adminResponseSchemas = [
  operatorTokenSchema,
  operatorTokenListSchema,
  operatorTokenCreatedSchema,
  operatorTokenRevokedSchema,
  feedKeyPageSchema,
  listingReviewSchema,
  leadRefusalsSchema,
  statsHistorySchema,
  operatorSessionSchema,
  heldListingPageSchema,
  adminOfficePageSchema,
  adminStatsSchema,
  adminListingSchema,
  adminListingPageSchema,
  visibilityResultSchema,
  feedRetriedSchema,
  auditEntrySchema,
  auditPageSchema,
  siteSettingsSchema,
  navigationSchema,
  pageListSchema,
  pageDeletedSchema,
  adminLeadSchema,
  adminLeadPageSchema,
  leadRetriedSchema,
  blockEntrySchema,
  blocklistSchema,
  unblockedSchema,
  officeOverviewSchema,
  officeSettingsSchema,
];
