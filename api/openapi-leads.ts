import { answer, errorResponse, json, queryParameters, uuidPath } from './openapi-helpers.js';

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
  };
}
