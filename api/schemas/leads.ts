/** Schemas of leads, the blocklist and office settings (docs/leads.md; docs/architecture.md, Leads). */

import { LEAD_DELIVERY_MODES, LEAD_STATUSES } from '../../db/leads.js';
import { LEAD_SORTS } from '../../db/sort-order.js';
import { botCheckProperties } from './bot-check.js';
import { objectSchema, requiredObject } from './object-schema.js';
import { adminLimitParam, offsetParam, sortParam } from './paging.js';

export const leadRequestSchema = {
  $id: 'LeadRequest',
  type: 'object',
  additionalProperties: false,
  required: ['listing', 'contact', 'consent'],
  properties: {
    listing: requiredObject(
      { office: { type: 'string', minLength: 1, maxLength: 200 }, uniqueId: { type: 'string', minLength: 1, maxLength: 200 } },
      { additionalProperties: false },
    ),
    contact: {
      type: 'object',
      additionalProperties: false,
      required: ['email', 'message'],
      properties: {
        email: { type: 'string', format: 'email', maxLength: 254 },
        message: { type: 'string', minLength: 1, maxLength: 2000, pattern: '\\S' },
        name: { type: 'string', maxLength: 120 },
        phone: { type: 'string', maxLength: 40 },
      },
    },
    consent: { type: 'boolean', description: 'Must be true: the consumer agrees to share their details with the office.' },
    ...botCheckProperties('submission'),
  },
} as const;

export const leadAcceptedSchema = objectSchema('LeadAccepted', {
  id: { type: 'string', format: 'uuid' },
  status: {
    enum: ['pending', 'dead_letter', 'awaiting_crm'],
    description:
      'pending: its mail is on its way; awaiting_crm: the office takes leads in its CRM, and the mail waits for an acknowledgement; dead_letter: nowhere to send it (operators see it).',
  },
});

export const adminLeadsQuerySchema = {
  $id: 'AdminLeadsQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { enum: [...LEAD_STATUSES] },
    sender: { type: 'string', minLength: 1, maxLength: 254, description: 'Case-insensitive part of the sender’s email.' },
    sort: sortParam(LEAD_SORTS, '-received', 'received: when it arrived; status; attempts.'),
    limit: adminLimitParam,
    offset: offsetParam,
  },
} as const;

export const blockRequestSchema = objectSchema(
  'BlockRequest',
  {
    kind: { enum: ['email', 'domain'] },
    value: { type: 'string', minLength: 3, maxLength: 254 },
    reason: { type: 'string', maxLength: 200 },
    force: { type: 'boolean', description: 'Needed to block a widely used mail provider domain, or to replace an existing entry.' },
  },
  { additionalProperties: false, required: ['kind', 'value'] },
);

export const unblockRequestSchema = {
  $id: 'UnblockRequest',
  type: 'object',
  additionalProperties: false,
  description: 'Either id, or kind and value.',
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 64 },
    kind: { enum: ['email', 'domain'] },
    value: { type: 'string', minLength: 1, maxLength: 254 },
  },
} as const;

/** How an office's leads are delivered, as the API describes it. */
export const leadDeliverySchema = {
  enum: [...LEAD_DELIVERY_MODES],
  description:
    'email: mailed to the listing agent or the office; crm: sent to the CRM (lead.created and the lead API) and mailed only if no CRM acknowledges it within the wait (15 minutes unless configured); both: both at once.',
} as const;

export const officeSettingsRequestSchema = {
  $id: 'OfficeSettingsRequest',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  description: 'The settings to change; those left out keep their value.',
  properties: {
    leadEmail: {
      oneOf: [{ type: 'null' }, { type: 'string', format: 'email', maxLength: 254 }],
      description: 'Where leads go when no listing agent has an email; null clears it.',
    },
    leadDelivery: leadDeliverySchema,
  },
} as const;

export interface LeadRequest {
  listing: { office: string; uniqueId: string };
  contact: { email: string; message: string; name?: string; phone?: string };
  consent: boolean;
  turnstileToken?: string;
  website?: string;
}

/** The email path's states a key may filter its leads by (purged leads are gone from its API). */
const KEY_LEAD_STATUSES = LEAD_STATUSES.filter((s) => s !== 'purged');

export const feedLeadsQuerySchema = {
  $id: 'FeedLeadsQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    office: { type: 'string', minLength: 1, maxLength: 200, description: 'Only this office’s leads (one of the key’s offices; another office has none).' },
    status: { enum: [...KEY_LEAD_STATUSES], description: 'Only leads whose email delivery is in this state.' },
    since: {
      type: 'string',
      minLength: 1,
      maxLength: 20_000,
      description:
        'The since of an earlier answer: only the leads committed after that answer was read, so incremental pulls see each lead once, a lead whose transaction committed late included. Opaque.',
    },
    cursor: {
      type: 'string',
      minLength: 1,
      maxLength: 20_000,
      description: 'The next of the previous page: the page after it, in the same pull (pass the same office and status; not with since). Opaque.',
    },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
} as const;

const nullableString = { type: ['string', 'null'] } as const;
const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;

export const feedLeadSchema = objectSchema(
  'FeedLead',
  {
    id: { type: 'string', format: 'uuid' },
    createdAt: { type: 'string', format: 'date-time' },
    listing: requiredObject({
      listingKey: { type: 'string', description: 'office/uniqueId' },
      office: { type: 'string' },
      uniqueId: { type: 'string' },
      headline: {
        type: ['object', 'null'],
        additionalProperties: { type: 'string' },
        description: 'The listing’s headline by language, as stored now; null when it has none or is no longer stored.',
      },
    }),
    contact: requiredObject({ name: nullableString, email: { type: 'string' }, phone: nullableString, message: { type: 'string' } }),
    consent: { const: true, description: 'Always true: an enquiry is only taken with the consumer’s consent to share it with the office.' },
    delivery: requiredObject({
      mode: { ...leadDeliverySchema, description: `The office’s delivery choice when the lead arrived. ${leadDeliverySchema.description}` },
      crm: requiredObject(
        { acknowledgedAt: nullableTime, acknowledgedByThisKey: { type: 'boolean' } },
        { description: 'Whether a CRM acknowledged it (POST /v1/leads/{id}/ack): the first acknowledgement, by any key of its office.' },
      ),
      email: requiredObject(
        {
          status: {
            enum: [...KEY_LEAD_STATUSES],
            description:
              'awaiting_crm: on CRM delivery, the mail waits for an acknowledgement until fallbackAt; crm_acknowledged: a CRM acknowledged it, so no mail was needed; the others are the mail’s own states.',
          },
          recipient: nullableString,
          recipientSource: { enum: ['agent', 'office', null] },
          attempts: { type: 'integer' },
          deliveredAt: nullableTime,
          lastError: nullableString,
          fallbackAt: { ...nullableTime, description: 'On CRM delivery: when the mail goes unless a CRM acknowledges the lead first.' },
          fellBackAt: {
            ...nullableTime,
            description:
              'On CRM delivery: when the mail was released because no CRM had acknowledged the lead (or at once, when no active key covered the office).',
          },
        },
        { description: 'The mail to the listing agent or the office.' },
      ),
      webhooks: {
        type: 'array',
        description: 'Its lead.created event to each of this key’s endpoints subscribed to it.',
        items: requiredObject({
          endpointId: { type: 'string', format: 'uuid' },
          deliveryId: { type: 'string', description: 'Its webhook-id.' },
          status: { enum: ['pending', 'delivered', 'abandoned'] },
          attempts: { type: 'integer' },
          lastAttemptAt: nullableTime,
          deliveredAt: nullableTime,
        }),
      },
    }),
  },
  { description: 'A lead about one of the key’s offices’ listings, in full.' },
);

export const feedLeadPageSchema = objectSchema('FeedLeadPage', {
  leads: { type: 'array', items: { $ref: 'FeedLead' }, description: 'Newest first.' },
  next: { type: ['string', 'null'], description: 'An opaque cursor for the next page of this pull (pass it as cursor); null on its last page.' },
  since: {
    type: 'string',
    description: 'An opaque value for the next pull (pass it as since): the leads committed after this answer. The same on every page of a pull.',
  },
});

export const feedLeadAckSchema = objectSchema('FeedLeadAck', {
  id: { type: 'string', format: 'uuid' },
  acknowledgedAt: { type: 'string', format: 'date-time', description: 'The first acknowledgement’s time (a repeat keeps it).' },
  acknowledgedByThisKey: { type: 'boolean' },
  alreadyAcknowledged: { type: 'boolean', description: 'True when it had been acknowledged before (by this key or another of its office’s).' },
});

const day = { type: 'string', format: 'date', description: 'A UTC calendar day, YYYY-MM-DD.' } as const;
const dayCounts = {
  type: 'array',
  items: requiredObject({ day, enquiries: { type: 'integer', minimum: 1 } }),
} as const;

export const feedStatsQuerySchema = {
  $id: 'FeedStatsQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    from: { ...day, description: 'First UTC day counted (YYYY-MM-DD); 29 days before `to` when left out.' },
    to: { ...day, description: 'Last UTC day counted, inclusive (YYYY-MM-DD); today (UTC) when left out. At most 366 days after `from`.' },
    office: { type: 'string', minLength: 1, maxLength: 200, description: 'Only this office (one of the key’s offices; another office has no enquiries).' },
    listings: { type: 'integer', minimum: 0, maximum: 1000, default: 100, description: 'At most this many listings, those with the most enquiries first.' },
  },
} as const;

export const enquiryStatsSchema = objectSchema(
  'EnquiryStats',
  {
    from: day,
    to: day,
    total: { type: 'integer', minimum: 0 },
    offices: {
      type: 'array',
      description: 'Each office asked for, with every day of the range (zeros included).',
      items: requiredObject({
        office: { type: 'string' },
        total: { type: 'integer', minimum: 0 },
        days: {
          type: 'array',
          items: requiredObject({ day, enquiries: { type: 'integer', minimum: 0 } }),
        },
      }),
    },
    listings: {
      type: 'array',
      description: 'Listings with enquiries in the range, most enquiries first; each with the days it had any.',
      items: requiredObject({
        office: { type: 'string' },
        uniqueId: { type: 'string' },
        listingKey: { type: 'string' },
        total: { type: 'integer', minimum: 1 },
        days: dayCounts,
      }),
    },
    listingsTruncated: { type: 'boolean', description: 'More listings had enquiries than `listings` allowed.' },
  },
  {
    description:
      'Enquiries (leads) consumers sent about the key’s offices’ listings, per UTC day, whatever became of their delivery (leads purged after the retention time still count: a count holds no personal data).',
  },
);
