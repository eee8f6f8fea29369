import { answer, errorResponse, json, officePath, operatorErrors, operatorSecurity, queryParameters, uuidPath } from './openapi-helpers.js';

/** Paths of leads and their operator routes (docs/architecture.md, Leads). */
export function leadPaths(): Record<string, unknown> {
  return {
    '/v1/leads': {
      post: {
        summary: 'Send an enquiry about a listing',
        description:
          'Checked in this order: schema (400), consent true (400), honeypot `website` empty (403), bot challenge when TURNSTILE_SECRET is set (403), sender email or domain not blocked (403), listing public or sold/leased (404). Routed to the first listing agent with an email, else the office lead email, else dead-lettered. Rate limited per client address (LEAD_RATE_LIMIT per hour, 429).',
        requestBody: { required: true, content: json('LeadRequest') },
        responses: {
          202: { description: 'Accepted: stored, and delivered by mail in the background', content: json('LeadAccepted') },
          400: errorResponse('Invalid request or no consent'),
          403: errorResponse('Rejected (honeypot, bot challenge, blocklist)'),
          404: errorResponse('No such listing to enquire about'),
          429: errorResponse('Too many enquiries from this address'),
          503: errorResponse('Database unavailable'),
        },
      },
      get: {
        summary: "This key's offices' leads, newest first, with a since cursor for incremental pulls",
        description:
          'Only leads about listings of the key’s offices; purged leads are gone. Each answer is read in one database snapshot and gives it back as `since`: the next pull with `since` gets exactly the leads committed after it (a lead whose transaction committed late included), so pulls see each lead once. Page on with `cursor` (the `next` of the page before): the pages of one pull stay in its snapshot. Every read is recorded in the audit log against the key, with the ids of the leads shown (docs/security.md).',
        security: [{ feedKey: [] }, { feedToken: [] }],
        parameters: queryParameters('FeedLeadsQuery'),
        responses: {
          200: answer('A page of leads, the cursor of the next page, and where the next pull starts', 'FeedLeadPage'),
          400: errorResponse('Invalid query, or a since or cursor this API did not give'),
          401: errorResponse('Feed key missing, unknown, revoked or suspended'),
          503: errorResponse('Database unavailable'),
        },
      },
    },
    '/v1/leads/{id}': {
      get: {
        summary: 'One lead in full: contact, listing, consent, created time and its delivery on each path',
        description:
          'The consumer’s name, email, phone and message; the listing’s office, uniqueId and headline; its mail delivery and its lead.created event to each of this key’s endpoints. Another office’s lead is a 404 like a missing one, as is a purged lead. The read is recorded in the audit log against the key.',
        security: [{ feedKey: [] }, { feedToken: [] }],
        parameters: [uuidPath('id', 'Lead id')],
        responses: {
          200: answer('The lead', 'FeedLead'),
          401: errorResponse('Feed key missing, unknown, revoked or suspended'),
          404: errorResponse("No such lead among this key's offices (or it was purged)"),
          503: errorResponse('Database unavailable'),
        },
      },
    },
    '/v1/leads/{id}/ack': {
      post: {
        summary: 'Acknowledge a lead: the CRM has it',
        description:
          'The first acknowledgement is kept (when, and whether this key made it); acknowledging again answers it with alreadyAcknowledged true. Shown in the lead’s delivery.crm. Another office’s lead, or a purged one, is a 404. Recorded in the audit log against the key.',
        security: [{ feedKey: [] }, { feedToken: [] }],
        parameters: [uuidPath('id', 'Lead id')],
        responses: {
          200: answer('The acknowledgement', 'FeedLeadAck'),
          401: errorResponse('Feed key missing, unknown, revoked or suspended'),
          404: errorResponse("No such lead among this key's offices (or it was purged)"),
          503: errorResponse('Database unavailable'),
        },
      },
    },
    '/v1/feeds/stats': {
      get: {
        summary: "Enquiry counts per day for this key's offices, per office and per listing",
        description:
          'Every lead consumers sent about the key’s offices’ listings between two UTC days (inclusive; the last 30 days by default, at most 367 days), whatever became of its delivery. Per office every day of the range, zeros included; per listing the days it had enquiries, the busiest listings first. Another office named in `office` has none.',
        security: [{ feedKey: [] }, { feedToken: [] }],
        parameters: queryParameters('FeedStatsQuery'),
        responses: {
          200: answer('The counts', 'EnquiryStats'),
          400: errorResponse('Invalid query: a day that is not YYYY-MM-DD, from after to, or a range over 367 days'),
          401: errorResponse('Feed key missing, unknown, revoked or suspended'),
          503: errorResponse('Database unavailable'),
        },
      },
    },
    '/v1/admin/leads': {
      get: {
        summary: 'Leads, newest first',
        security: operatorSecurity,
        parameters: queryParameters('AdminLeadsQuery'),
        responses: { 200: answer('A page of leads and the total', 'AdminLeadPage'), 400: errorResponse('Invalid query'), ...operatorErrors },
      },
    },
    '/v1/admin/leads/refusals': {
      get: {
        summary: 'Enquiries refused before they became leads (unknown listing, blocked sender, rate-limited, failed the bot check), counted per day and reason',
        security: operatorSecurity,
        parameters: queryParameters('LeadRefusalsQuery'),
        responses: { 200: answer('The counts', 'LeadRefusals'), 400: errorResponse('Invalid query'), ...operatorErrors },
      },
    },
    '/v1/admin/leads/{id}/retry': {
      post: {
        summary: 'Send a failed or undeliverable (dead_letter) lead again, routed afresh (failed or dead_letter -> pending)',
        description:
          'The recipient is worked out again from the listing as stored now: the first agent with one valid email, else the office lead email. A lead that had nowhere to go is sent once the office has a lead email.',
        security: operatorSecurity,
        parameters: [uuidPath('id', 'Lead id')],
        responses: {
          200: answer('Queued again', 'LeadRetried'),
          404: errorResponse('Unknown lead'),
          409: errorResponse('The lead is neither failed nor dead_letter, or it still has no recipient'),
          ...operatorErrors,
        },
      },
    },
    '/v1/admin/blocklist': {
      get: { summary: 'Blocked senders', security: operatorSecurity, responses: { 200: answer('Every entry', 'Blocklist'), ...operatorErrors } },
      post: {
        summary: 'Block an email address or a domain (force: common mail providers, or replacing an entry)',
        security: operatorSecurity,
        requestBody: { required: true, content: json('BlockRequest') },
        responses: { 200: answer('The entry', 'BlockEntry'), 400: errorResponse('Invalid body'), 409: errorResponse('Already blocked'), ...operatorErrors },
      },
      delete: {
        summary: 'Unblock by id, or by kind and value',
        security: operatorSecurity,
        requestBody: { required: true, content: json('UnblockRequest') },
        responses: {
          200: answer('The entry removed', 'Unblocked'),
          400: errorResponse('Invalid body'),
          404: errorResponse('No such entry'),
          ...operatorErrors,
        },
      },
    },
    '/v1/admin/offices': {
      get: {
        summary: 'Every office the service knows of: listings, lead email, drop settings, keys and newest feed',
        description:
          'An office is known when a listing, a feed key, a lead email or SFTP drop settings name it. Sorted by office id (default), listings or newest feed, paged with limit and offset, filtered by q.',
        security: operatorSecurity,
        parameters: queryParameters('AdminOfficesQuery'),
        responses: { 200: answer('A page of offices and the total', 'AdminOfficePage'), 400: errorResponse('Invalid query'), ...operatorErrors },
      },
    },
    '/v1/admin/offices/{office}': {
      get: {
        summary: 'What the service holds about an office: lead email, SFTP drop settings, listings by status, the feed keys that cover it',
        security: operatorSecurity,
        parameters: [officePath],
        responses: {
          200: answer('The office', 'OfficeOverview'),
          400: errorResponse('Not an office id'),
          404: errorResponse('No listing, feed key or setting names the office'),
          ...operatorErrors,
        },
      },
      put: {
        summary: "Set an office's lead settings: its lead email (null clears it) and how its leads are delivered (email, crm or both)",
        description:
          'Only the settings sent change. On crm delivery a lead is sent to the CRM (lead.created, the key’s lead API) and mailed only when no CRM acknowledged it within LEAD_CRM_WAIT_MS (15 minutes by default), or at once when no active key covers the office; on email delivery no lead.created event is raised; both (the default) mails it and raises the event. Recorded in the audit log.',
        security: operatorSecurity,
        parameters: [officePath],
        requestBody: { required: true, content: json('OfficeSettingsRequest') },
        responses: {
          200: answer('The settings after the change', 'OfficeSettings'),
          400: errorResponse('Invalid body, or a body that sets nothing'),
          ...operatorErrors,
        },
      },
    },
  };
}
