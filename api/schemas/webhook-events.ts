/**
 * Schemas of the events the service POSTs to webhook endpoints (docs/ingestion.md, Webhooks):
 * Standard Webhooks' { type, timestamp, data }, one schema per event type. Published in the API
 * description's `webhooks` section, and checked against every event the webhook tests receive.
 */

import type { WebhookEventType } from '../../db/webhooks.js';
import { LISTING_STATUSES } from '../../pipeline/listing-statuses.js';
import { summary } from './ingestion.js';
import { requiredObject } from './object-schema.js';
import { countsSchema } from './validation-result.js';

const uuid = { type: 'string', format: 'uuid' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const feedIdOrNull = {
  type: ['string', 'null'],
  format: 'uuid',
  description: 'The feed that made the change; null when no feed did (an operator, or a held archive applied).',
} as const;
const statuses = LISTING_STATUSES;
const status = { enum: [...statuses, null], description: 'The listing status (null: the listing was not public before).' } as const;
const publicPrice = {
  description: 'The asking price or rent the public saw; null when the agent withheld it or there was none.',
  oneOf: [
    {
      type: 'object',
      required: ['amount'],
      properties: {
        amount: { type: 'number' },
        currency: { type: 'string', description: 'ISO-4217' },
        period: { type: 'string', description: 'A rent’s period (week, month…).' },
      },
    },
    { type: 'null' },
  ],
} as const;
const listing = {
  listingKey: { type: 'string', description: 'office/uniqueId' },
  office: { type: 'string' },
  uniqueId: { type: 'string' },
} as const;
const outcomes = ['ok', 'with_invalid', 'not_well_formed', 'failed', 'tripped'] as const;

/** An event's envelope around its data. */
const envelope = (id: string, type: WebhookEventType | WebhookEventType[], description: string, data: Record<string, unknown>) =>
  ({
    $id: id,
    type: 'object',
    description,
    required: ['type', 'timestamp', 'data'],
    properties: {
      type: Array.isArray(type) ? { enum: type } : { const: type },
      timestamp: { ...dateTime, description: 'When the event was raised.' },
      data: { type: 'object', ...data },
    },
  }) as const;

const feedData = {
  required: ['feedId', 'outcome', 'mode', 'format', 'officeScope', 'counts', 'summary', 'issueCounts', 'statusUrl'],
  properties: {
    feedId: uuid,
    outcome: { enum: [...outcomes] },
    mode: { enum: ['full', 'incremental'] },
    format: { enum: ['reaxml', 'reso', 'project'] },
    officeScope: { type: 'array', items: { type: 'string' } },
    counts: { oneOf: [countsSchema, { type: 'null' }] },
    summary: {
      description: 'Listings inserted, updated, unchanged and ignored as stale; null when ingestion gave up.',
      oneOf: [summary, { type: 'null' }],
    },
    issueCounts: {
      oneOf: [requiredObject({ errors: { type: 'integer' }, warnings: { type: 'integer' } }), { type: 'null' }],
    },
    quarantine: {
      type: 'array',
      description: 'feed.quarantined: each office whose archive the circuit breaker held.',
      items: requiredObject({ office: { type: 'string' }, quarantineId: { type: ['string', 'null'] }, held: { type: 'integer' } }),
    },
    statusUrl: { type: 'string', description: 'GET it with the key for the whole result.' },
  },
};

const changes = (item: Record<string, unknown>) => ({
  required: ['feedId', 'changes'],
  properties: {
    feedId: feedIdOrNull,
    changes: {
      type: 'array',
      minItems: 1,
      maxItems: 500,
      items: { type: 'object', required: ['listingKey', 'office', 'uniqueId', 'from', 'to'], properties: { ...listing, ...item } },
    },
  },
});

export const webhookEventSchemas = [
  envelope(
    'WebhookFeedEvent',
    ['feed.completed', 'feed.failed', 'feed.quarantined'],
    'A feed pushed with the key ended: feed.completed (outcome ok or with_invalid), feed.failed (not_well_formed or failed) or feed.quarantined (tripped).',
    feedData,
  ),
  envelope('WebhookListingArchived', 'listing.archived', 'Listings of one of the key’s offices were archived.', {
    required: ['feedId', 'office', 'archived'],
    properties: { feedId: feedIdOrNull, office: { type: 'string' }, archived: { type: 'integer', minimum: 1, description: 'How many.' } },
  }),
  envelope(
    'WebhookListingStatusChanged',
    'listing.status_changed',
    'Listings of the key’s offices changed status (at most 500 to an event).',
    changes({ from: status, to: status }),
  ),
  envelope(
    'WebhookListingPriceChanged',
    'listing.price_changed',
    'The asking price or rent the public sees changed (at most 500 listings to an event).',
    changes({ from: publicPrice, to: publicPrice }),
  ),
  envelope(
    'WebhookLeadCreated',
    'lead.created',
    'A consumer enquired about a listing of one of the key’s offices. Ids only, never the consumer’s details: GET leadUrl with the key for the lead in full.',
    {
      required: ['leadId', 'listingKey', 'office', 'uniqueId', 'createdAt', 'leadUrl'],
      additionalProperties: false,
      properties: {
        leadId: uuid,
        ...listing,
        createdAt: { ...dateTime, description: 'When the lead was taken.' },
        leadUrl: { type: 'string', description: 'GET /v1/leads/{id}: the lead in full.' },
      },
    },
  ),
  envelope('WebhookTestEvent', 'webhook.test', 'Sent on request: POST /v1/webhooks/{id}/test.', {
    required: ['endpointId', 'message', 'sentAt'],
    properties: { endpointId: uuid, message: { type: 'string' }, sentAt: dateTime },
  }),
];

/** The schema of each event type's payload. */
export const WEBHOOK_EVENT_SCHEMA: Record<WebhookEventType, string> = {
  'feed.completed': 'WebhookFeedEvent',
  'feed.failed': 'WebhookFeedEvent',
  'feed.quarantined': 'WebhookFeedEvent',
  'listing.archived': 'WebhookListingArchived',
  'listing.status_changed': 'WebhookListingStatusChanged',
  'listing.price_changed': 'WebhookListingPriceChanged',
  'lead.created': 'WebhookLeadCreated',
  'webhook.test': 'WebhookTestEvent',
};
