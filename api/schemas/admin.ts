/** Schemas of the operator API (docs/operators.md; docs/architecture.md, Operators and Site content and FX). */

import { AUDIT_SORTS, FEED_SORTS, KEY_SORTS, LISTING_SORTS } from '../../db/sort-order.js';
import { LISTING_STATUSES } from '../../pipeline/listing-statuses.js';
import { outcomeListParam } from './feed-history.js';
import { objectSchema, requiredObject } from './object-schema.js';
import { adminLimitParam as limit, offsetParam as offset, sortParam } from './paging.js';

const booleanText = { enum: ['true', 'false'] } as const;

export const adminKeysQuerySchema = {
  $id: 'AdminKeysQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    q: { type: 'string', minLength: 1, maxLength: 100, description: 'Case-insensitive part of the client name, alert email or an office id.' },
    sort: sortParam(KEY_SORTS, 'client', 'client: client name; status; created; lastFeed: its newest feed; lastUsed: when it last authenticated.'),
    limit,
    offset,
  },
} as const;

export const operatorTokenRequestSchema = objectSchema(
  'OperatorTokenRequest',
  {
    name: { type: 'string', pattern: '^[A-Za-z0-9._@-]{1,64}$', description: 'Who or what the token is for: 1 to 64 letters, digits, ., _, @ or -.' },
  },
  { additionalProperties: false },
);

export const keyUpdateSchema = objectSchema(
  'KeyUpdate',
  {
    officeIds: {
      type: 'array',
      minItems: 1,
      maxItems: 500,
      items: { type: 'string' },
      description: 'The offices the key may write from now on (replacing the list; the key’s stored listings are kept).',
    },
  },
  { additionalProperties: false },
);

export const historyQuerySchema = {
  $id: 'StatsHistoryQuery',
  type: 'object',
  additionalProperties: false,
  properties: { days: { type: 'integer', minimum: 1, maximum: 90, default: 14, description: 'How many days back, today included.' } },
} as const;

export const refusalsQuerySchema = {
  $id: 'LeadRefusalsQuery',
  type: 'object',
  additionalProperties: false,
  properties: { days: { type: 'integer', minimum: 1, maximum: 90, default: 7, description: 'How many days back, today included.' } },
} as const;

export const adminListingsQuerySchema = {
  $id: 'AdminListingsQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    q: { type: 'string', minLength: 1, maxLength: 100, description: 'Case-insensitive substring of the listing key, address or headline.' },
    hidden: { ...booleanText, description: 'true: hidden listings only; false: visible ones only.' },
    office: { type: 'string', minLength: 1, maxLength: 100, description: 'Only this office’s listings.' },
    status: { enum: [...LISTING_STATUSES], description: 'Only listings with this status.' },
    sort: sortParam(LISTING_SORTS, '-updated', 'updated: when the service last changed it; key: the listing key; status.'),
    limit,
    offset,
  },
} as const;

export const adminFeedsQuerySchema = {
  $id: 'AdminFeedsQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { enum: ['queued', 'running', 'done', 'failed', 'rejected'] },
    outcome: outcomeListParam,
    needsLook: {
      ...booleanText,
      description:
        'true: only feeds that still need a look (outcome with_invalid, not_well_formed, tripped or failed, except tripped feeds whose held archives have all been applied or reviewed); false: the others.',
    },
    feedId: { type: 'string', format: 'uuid', description: 'Only this feed (its id, as the integrator or a log names it).' },
    since: { type: 'string', format: 'date-time', description: 'Only feeds received at or after this time (ISO 8601), e.g. 24 hours ago.' },
    keyId: { type: 'string', format: 'uuid', description: 'Only feeds pushed with this key.' },
    office: { type: 'string', minLength: 1, maxLength: 200, description: 'Only feeds whose office scope includes this office.' },
    sort: sortParam(FEED_SORTS, '-received', 'received: when it arrived; outcome; attempts; invalid: how many of its listings were invalid.'),
    limit,
    offset,
  },
} as const;

export const auditQuerySchema = {
  $id: 'AuditQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    action: { type: 'string', minLength: 1, maxLength: 60, description: 'Only this action, e.g. key.approve.' },
    actor: { type: 'string', minLength: 1, maxLength: 100, description: 'Only what this operator did.' },
    sort: sortParam(AUDIT_SORTS, '-at', 'at: when; actor; action.'),
    limit,
    offset,
  },
} as const;

const id100 = { type: 'string', minLength: 1, maxLength: 100 } as const;

export const visibilityRequestSchema = objectSchema(
  'VisibilityRequest',
  { officeId: id100, uniqueId: id100, hidden: { type: 'boolean' } },
  { additionalProperties: false },
);

const localeText = {
  type: 'object',
  minProperties: 1,
  maxProperties: 50,
  propertyNames: { pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$' },
  additionalProperties: { type: 'string', maxLength: 20000 },
  description: 'Text by locale, e.g. { "en-AU": "…" }; each value at most 20,000 characters.',
} as const;

export const siteSettingRequestSchema = objectSchema(
  'SiteSettingRequest',
  {
    key: { enum: ['identity', 'seo', 'favicon'] },
    value: {
      type: 'object',
      description:
        'Open object: every field is kept and served by GET /v1/site. The console edits these by name: identity name, tagline, logoUrl, primaryColor and accentColor (#rgb or #rrggbb); seo title and description; favicon url. A field whose name ends in url, uri, href, src, icon, logo or image (any case) must be an http(s) URL or a path on this site, and no text anywhere may start with javascript:, vbscript:, data:, file: or blob:.',
    },
  },
  { additionalProperties: false },
);

export const navLinkSchema = objectSchema(
  'NavLink',
  {
    kind: { enum: ['builtin', 'page', 'custom'], description: 'builtin: listings, agents or offices; page: a page slug; custom: a URL.' },
    ref: { type: 'string', minLength: 1, maxLength: 500 },
    label: { oneOf: [{ type: 'null' }, localeText] },
    visible: { type: 'boolean' },
    newTab: { type: 'boolean' },
  },
  { additionalProperties: false },
);

export const navRequestSchema = objectSchema(
  'NavRequest',
  { links: { type: 'array', maxItems: 20, items: { $ref: 'NavLink' }, description: 'An empty list restores the default navigation.' } },
  { additionalProperties: false },
);

const slug = {
  type: 'string',
  minLength: 1,
  maxLength: 80,
  pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
  description: 'Lower-case letters and digits in words joined by hyphens.',
} as const;

export const pageCreateSchema = objectSchema(
  'PageCreate',
  { slug, title: localeText, body: localeText, description: { oneOf: [{ type: 'null' }, localeText] }, published: { type: 'boolean' } },
  { additionalProperties: false, required: ['slug', 'title', 'body'] },
);

export const pageUpdateSchema = {
  $id: 'PageUpdate',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: pageCreateSchema.properties,
} as const;

export const pageSchema = objectSchema('Page', {
  id: { type: 'string', format: 'uuid' },
  slug: { type: 'string' },
  title: { type: 'object' },
  body: { type: 'object' },
  description: { type: ['object', 'null'] },
  published: { type: 'boolean' },
  createdAt: { type: 'string', format: 'date-time' },
  updatedAt: { type: 'string', format: 'date-time' },
});

export const siteSchema = objectSchema('Site', {
  settings: requiredObject({ identity: { type: 'object' }, seo: { type: 'object' }, favicon: { type: 'object' } }),
  navigation: { type: 'array', items: { $ref: 'NavLink' } },
  pages: {
    type: 'array',
    items: requiredObject({ id: { type: 'string' }, slug: { type: 'string' }, title: { type: 'object' }, description: { type: ['object', 'null'] } }),
  },
});

export const adminOfficesQuerySchema = {
  $id: 'AdminOfficesQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    q: { type: 'string', minLength: 1, maxLength: 100, description: 'Case-insensitive substring of the office id.' },
    sort: {
      enum: ['office', '-office', 'listings', '-listings', 'lastFeed', '-lastFeed'],
      default: 'office',
      description: 'By office id, by stored listings, or by when its newest feed arrived; a leading - reverses.',
    },
    limit,
    offset,
  },
} as const;

export const pageQuerySchema = {
  $id: 'PageQuery',
  type: 'object',
  additionalProperties: false,
  properties: { limit, offset },
} as const;
