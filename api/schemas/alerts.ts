/** Schemas of saved searches and alerts (docs/alerts.md). */

import { botCheckProperties } from './bot-check.js';
import { objectSchema, requiredObject } from './object-schema.js';

const token = {
  type: 'string',
  minLength: 10,
  maxLength: 200,
  description: 'The token from a link in a mail the service sent to the address (confirmation or alert). It stands for the address: keep it private.',
} as const;

export const alertRequestSchema = {
  $id: 'AlertRequest',
  type: 'object',
  additionalProperties: false,
  required: ['email', 'search', 'consent'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: 254, description: 'Where the alerts go, once the address confirms through the link mailed to it.' },
    search: {
      type: 'object',
      minProperties: 1,
      maxProperties: 30,
      description:
        'The search, with the parameters of GET /v1/listings that say which listings (country, office, category, subCategory, locality, region, postcode, saleMode, minPrice, maxPrice, minBedrooms, maxBedrooms, minBathrooms, minCarSpaces, minLandArea, maxLandArea, q, bbox, near, radiusKm) and the same rules; a list as an array or as comma-separated text, e.g. `{ "locality": ["Fitzroy"], "category": "residential", "minBedrooms": 3, "maxPrice": 900000 }`. It must name a place (locality, postcode, region, bbox, near, office or country). Parameters about time, order or paging (status, soldSince, updatedSince, listedSince, openFrom, openTo, agent, sort, facets, limit, offset, cursor) are refused.',
      additionalProperties: {
        anyOf: [
          { type: 'string', maxLength: 500 },
          { type: 'number' },
          { type: 'array', maxItems: 20, items: { anyOf: [{ type: 'string', maxLength: 200 }, { type: 'number' }] } },
        ],
      },
    },
    frequency: {
      enum: ['instant', 'daily'],
      default: 'instant',
      description:
        'instant: a mail within a minute of matching listings coming up (a feed’s changes together); daily: one mail a day at 07:00 in timeZone, when anything matched.',
    },
    timeZone: { type: 'string', minLength: 1, maxLength: 64, default: 'UTC', description: 'An IANA time zone (Australia/Melbourne): when a daily alert goes.' },
    consent: { type: 'boolean', description: 'Must be true: the consumer agrees to be mailed about listings matching the search.' },
    ...botCheckProperties('request'),
  },
} as const;

export const alertAcceptedSchema = objectSchema('AlertAccepted', {
  status: {
    const: 'confirmation_sent',
    description:
      'The same answer whatever the address: a confirmation link is mailed to it unless it already has this alert, is at its limits (25 alerts; 3 confirmation mails for requests not yet confirmed, which expire after 48 hours), or nothing can be mailed to it. Nothing else is sent before it confirms.',
  },
});

export const alertTokenRequestSchema = objectSchema('AlertTokenRequest', { token }, { additionalProperties: false });

export const alertTokenQuerySchema = objectSchema('AlertTokenQuery', { token }, { additionalProperties: false });

export const alertSubscriptionSchema = objectSchema('AlertSubscription', {
  id: { type: 'string', format: 'uuid' },
  email: { type: 'string' },
  status: {
    enum: ['pending', 'confirmed'],
    description: 'pending: waiting for the address to confirm (expires after 48 hours); confirmed: alerts are sent.',
  },
  frequency: { enum: ['instant', 'daily'] },
  timeZone: { type: 'string' },
  search: { type: 'object', additionalProperties: { type: 'string' }, description: 'The search as GET /v1/listings parameters (text).' },
  description: { type: 'string', description: 'The search in words, as the mails name it.' },
  createdAt: { type: 'string', format: 'date-time' },
  confirmedAt: { type: ['string', 'null'], format: 'date-time' },
  endsAt: {
    type: ['string', 'null'],
    format: 'date-time',
    description: 'When the alert ends and is deleted: the retention time after its confirmation (LEAD_RETENTION_DAYS).',
  },
});

export const alertSubscriptionListSchema = objectSchema('AlertSubscriptionList', { data: { type: 'array', items: { $ref: 'AlertSubscription' } } });

export const adminAlertStatsQuerySchema = {
  $id: 'AdminAlertStatsQuery',
  type: 'object',
  additionalProperties: false,
  properties: { days: { type: 'integer', minimum: 1, maximum: 366, default: 30, description: 'UTC days up to today.' } },
} as const;

export const adminAlertStatsSchema = objectSchema('AdminAlertStats', {
  subscriptions: requiredObject({
    pending: { type: 'integer', description: 'Waiting for their address to confirm.' },
    confirmed: { type: 'integer' },
    instant: { type: 'integer', description: 'Confirmed, mailed as matches come up.' },
    daily: { type: 'integer', description: 'Confirmed, mailed once a day.' },
  }),
  days: {
    type: 'array',
    items: requiredObject({
      day: { type: 'string', format: 'date' },
      subscribed: { type: 'integer', description: 'Subscription requests stored (a repeat of a pending one not counted).' },
      confirmed: { type: 'integer' },
      sent: { type: 'integer', description: 'Alert mails sent (confirmation mails not counted).' },
      unsubscribed: { type: 'integer', description: 'Alerts ended by their subscriber (link, one-click header or list).' },
    }),
  },
});

export const alertSchemas = [
  alertRequestSchema,
  alertAcceptedSchema,
  alertTokenRequestSchema,
  alertTokenQuerySchema,
  alertSubscriptionSchema,
  alertSubscriptionListSchema,
  adminAlertStatsQuerySchema,
  adminAlertStatsSchema,
];
