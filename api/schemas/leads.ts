/** Schemas of leads, the blocklist and office settings (docs/leads.md; docs/architecture.md, Leads). */

import { LEAD_SORTS } from '../../db/sort-order.js';
import { adminLimitParam, offsetParam, sortParam } from './paging.js';

export const leadRequestSchema = {
  $id: 'LeadRequest',
  type: 'object',
  additionalProperties: false,
  required: ['listing', 'contact', 'consent'],
  properties: {
    listing: {
      type: 'object',
      additionalProperties: false,
      required: ['office', 'uniqueId'],
      properties: { office: { type: 'string', minLength: 1, maxLength: 200 }, uniqueId: { type: 'string', minLength: 1, maxLength: 200 } },
    },
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
    turnstileToken: { type: 'string', maxLength: 4096 },
    website: {
      type: 'string',
      maxLength: 2000,
      description: 'Honeypot: leave empty (or leave out). Any character in it, a space included, rejects the submission.',
    },
  },
} as const;

export const leadAcceptedSchema = {
  $id: 'LeadAccepted',
  type: 'object',
  required: ['id', 'status'],
  properties: { id: { type: 'string', format: 'uuid' }, status: { enum: ['pending', 'dead_letter'] } },
} as const;

export const adminLeadsQuerySchema = {
  $id: 'AdminLeadsQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { enum: ['pending', 'sending', 'delivered', 'failed', 'purged', 'dead_letter'] },
    sender: { type: 'string', minLength: 1, maxLength: 254, description: 'Case-insensitive part of the sender’s email.' },
    sort: sortParam(LEAD_SORTS, '-received', 'received: when it arrived; status; attempts.'),
    limit: adminLimitParam,
    offset: offsetParam,
  },
} as const;

export const blockRequestSchema = {
  $id: 'BlockRequest',
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'value'],
  properties: {
    kind: { enum: ['email', 'domain'] },
    value: { type: 'string', minLength: 3, maxLength: 254 },
    reason: { type: 'string', maxLength: 200 },
    force: { type: 'boolean', description: 'Needed to block a widely used mail provider domain, or to replace an existing entry.' },
  },
} as const;

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

export const officeSettingsRequestSchema = {
  $id: 'OfficeSettingsRequest',
  type: 'object',
  additionalProperties: false,
  required: ['leadEmail'],
  properties: {
    leadEmail: {
      oneOf: [{ type: 'null' }, { type: 'string', format: 'email', maxLength: 254 }],
      description: 'Where leads go when no listing agent has an email; null clears it.',
    },
  },
} as const;

export interface LeadRequest {
  listing: { office: string; uniqueId: string };
  contact: { email: string; message: string; name?: string; phone?: string };
  consent: boolean;
  turnstileToken?: string;
  website?: string;
}
