/** Schemas of the webhook endpoints a feed key registers, and their delivery log (docs/ingestion.md, Webhooks). */

import { SUBSCRIBABLE_EVENTS } from '../../db/webhooks.js';
import { objectSchema } from './object-schema.js';
import { adminLimitParam as limit, offsetParam as offset, offsetPageSchema } from './paging.js';

const uuid = { type: 'string', format: 'uuid' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const url = {
  type: 'string',
  minLength: 1,
  maxLength: 2000,
  description:
    'Where events are POSTed: https, to a public address (the name is resolved when registered and at every delivery; loopback, private and link-local addresses are refused unless the operator allowed them).',
} as const;
const events = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { enum: [...SUBSCRIBABLE_EVENTS] },
  description:
    'The events to receive: feed.completed (a feed was applied: ok or with invalid listings), feed.failed (not well formed, or ingestion gave up), feed.quarantined (the circuit breaker held a full feed’s archive), listing.archived (listings of one of the key’s offices were archived: the count), listing.status_changed (listings of the key’s offices changed status, e.g. to sold or withdrawn: each listing’s key, from and to), listing.price_changed (the public asking price changed: each listing’s key, the public price before and after), lead.created (a consumer enquired about a listing of one of the key’s offices: the lead’s id, the listing’s key and leadUrl, never the consumer’s details; GET leadUrl with the key for them). The listing events come from the change log and lead.created is stored with its lead: every key whose offices include the listing’s office hears of them, whoever made the change.',
} as const;
const description = { type: ['string', 'null'], maxLength: 500, description: 'A note of your own.' } as const;

export const webhookEndpointSchema = objectSchema('WebhookEndpoint', {
  id: uuid,
  keyId: uuid,
  url: { type: 'string' },
  events: { type: 'array', items: { type: 'string' } },
  description: { type: ['string', 'null'] },
  status: {
    enum: ['active', 'disabled'],
    description: 'disabled: it failed every delivery for WEBHOOK_DISABLE_AFTER_HOURS (24 h); nothing is sent until it is enabled again.',
  },
  failingSince: { type: ['string', 'null'], format: 'date-time', description: 'Since when every delivery failed (null: the last one was acknowledged).' },
  disabledAt: { type: ['string', 'null'], format: 'date-time' },
  disabledReason: { type: ['string', 'null'] },
  createdAt: { type: 'string', format: 'date-time' },
});

export const webhookRequestSchema = objectSchema(
  'WebhookRequest',
  { url, events: { ...events, description: `${events.description} Default: all of them.` }, description },
  { additionalProperties: false, required: ['url'] },
);

export const adminWebhookRequestSchema = objectSchema(
  'AdminWebhookRequest',
  { keyId: { ...uuid, description: 'The feed key whose feeds raise the events.' }, url, events, description },
  { additionalProperties: false, required: ['keyId', 'url'] },
);

export const webhookUpdateSchema = {
  $id: 'WebhookUpdate',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    url,
    events,
    description,
    enabled: { const: true, description: 'Turns a disabled endpoint on again (its failure clock starts afresh).' },
  },
} as const;

export const webhookCreatedSchema = objectSchema('WebhookCreated', {
  endpoint: { $ref: 'WebhookEndpoint' },
  secret: { type: 'string', description: 'The signing secret (whsec_…), shown only here: keep it to verify webhook-signature.' },
});

export const webhookSecretSchema = objectSchema('WebhookSecret', {
  secret: { type: 'string', description: 'The new signing secret, shown only here.' },
  previousSecretValidHours: {
    type: 'integer',
    description:
      'For this long after a rotation each delivery carries one more signature made with the secret it replaced, so receivers can switch over; a later rotation does not shorten it.',
  },
  previousSecretsValidUntil: {
    type: 'array',
    items: dateTime,
    description: 'When each earlier secret still signing stops, newest first (the one just replaced first).',
  },
});

export const webhookDeliverySchema = objectSchema('WebhookDelivery', {
  id: { type: 'string', description: 'The webhook-id header of every attempt (the same each time: deduplicate by it).' },
  endpointId: uuid,
  type: { type: 'string' },
  feedId: { type: ['string', 'null'] },
  status: { enum: ['pending', 'delivered', 'abandoned'], description: 'abandoned: every attempt failed, or the endpoint was disabled or deleted.' },
  attempts: { type: 'integer' },
  lastStatus: { type: ['integer', 'null'], description: 'The HTTP status of the last attempt (null: no answer).' },
  lastLatencyMs: { type: ['integer', 'null'] },
  lastError: { type: ['string', 'null'] },
  lastAttemptAt: { type: ['string', 'null'], format: 'date-time' },
  nextAttemptAt: { type: ['string', 'null'], format: 'date-time' },
  createdAt: { type: 'string', format: 'date-time' },
  deliveredAt: { type: ['string', 'null'], format: 'date-time' },
});

export const webhookDeliveryQuerySchema = {
  $id: 'WebhookDeliveryQuery',
  type: 'object',
  additionalProperties: false,
  properties: { status: { enum: ['pending', 'delivered', 'abandoned'] }, limit, offset },
} as const;

export const webhookDeliveryPageSchema = offsetPageSchema('WebhookDeliveryPage', 'deliveries', { $ref: 'WebhookDelivery' }, 'Deliveries matching the filter.');

export const webhookSchemas = [
  webhookEndpointSchema,
  webhookRequestSchema,
  adminWebhookRequestSchema,
  webhookUpdateSchema,
  webhookCreatedSchema,
  webhookSecretSchema,
  webhookDeliverySchema,
  webhookDeliveryQuerySchema,
  webhookDeliveryPageSchema,
];
