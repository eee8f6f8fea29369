import { isBlocked } from '../../db/blocklist.js';
import type { RefusalReason } from '../../db/lead-refusals.js';
import { enquirableListing, insertLead, leadJobKey, leadRecipient } from '../../db/leads.js';
import { badRequest, HttpError, notFound } from '../../lib/errors.js';
import { webhookPayload } from '../../workers/webhooks/webhook-events.js';
import { botRejection, REJECTED } from '../bot-check.js';
import { jsonBody } from '../middleware/json-body.js';
import type { LeadRequest } from '../schemas/leads.js';

const forbidden = (message: string) => new HttpError(403, message);

import { errorResponse, json } from '../openapi-helpers.js';
import type { RouteSpec } from '../route-registry.js';
/**
 * POST /v1/leads with its checks in order (docs/architecture.md, Leads). Once 202 is answered the lead is in the
 * database; queueing its delivery is best effort here, and the sweep queues any pending lead
 * whose job did not make it (Redis away), so an accepted lead is always delivered.
 */
export const leadRoutes: RouteSpec[] = [
  {
    method: 'post',
    path: '/v1/leads',
    operationId: 'submitLead',
    tag: 'leads',
    auth: 'none',
    summary: 'Send an enquiry about a listing',
    description:
      'Checked in this order: schema (400), consent true (400), honeypot `website` empty (403), bot challenge when TURNSTILE_SECRET is set (403), sender email or domain not blocked (403), listing public or sold/leased (404). Routed to the first listing agent with an email, else the office lead email, else dead-lettered. Rate limited per client address (LEAD_RATE_LIMIT per hour, 429).',
    body: 'LeadRequest',
    responses: {
      202: { description: 'Accepted: stored, and delivered by mail in the background', content: json('LeadAccepted') },
      400: errorResponse('Invalid request or no consent'),
      403: errorResponse('Rejected (honeypot, bot challenge, blocklist)'),
      404: errorResponse('No such listing to enquire about'),
      429: errorResponse('Too many enquiries from this address'),
      503: errorResponse('Database unavailable'),
    },
    handle: (deps, { validBody }) => {
      const { db, leadQueue, webhookQueue, config } = deps;
      const turnstile = config.turnstileSecret ? { secret: config.turnstileSecret, verifyUrl: config.turnstileVerifyUrl } : null;
      const refused = (reason: RefusalReason) => deps.refusals?.count(reason);
      // A 503 (the service unable to take it) does not use up the sender's allowance.
      const limit = deps.limit('lead', config.leadRateLimit, { countUnavailable: false, onRefused: () => deps.refusals?.count('rate_limited') });
      return [
        limit,
        jsonBody('32kb'),
        async (req, res) => {
          const body = validBody<LeadRequest>(req);
          if (body.consent !== true) throw badRequest('body.consent must be true: the enquiry is shared with the office');
          const bot = await botRejection(turnstile, body, req.ip);
          if (bot) {
            refused('bot_check');
            throw forbidden(bot);
          }
          if (await isBlocked(db, body.contact.email)) {
            refused('blocked');
            throw forbidden(REJECTED);
          }
          const listing = await enquirableListing(db, body.listing.office, body.listing.uniqueId);
          if (!listing) {
            refused('unknown_listing');
            throw notFound(`no listing ${body.listing.office}/${body.listing.uniqueId} to enquire about`);
          }
          const recipient = await leadRecipient(db, listing);
          const contact = {
            email: body.contact.email.trim(),
            message: body.contact.message,
            ...(body.contact.name ? { name: body.contact.name } : {}),
            ...(body.contact.phone ? { phone: body.contact.phone } : {}),
          };
          const lead = await insertLead(
            db,
            { listing, contact, recipient },
            (data) => webhookPayload({ type: 'lead.created', data: { ...data } }),
            config.leadCrmWaitMs,
          );
          // The lead.created events are stored with the lead; waking their lanes is best effort (the sweep sends them otherwise).
          for (const endpointId of lead.endpoints) await webhookQueue?.requeue(endpointId).catch(() => undefined);
          if (lead.status === 'pending') {
            await leadQueue
              .add(leadJobKey(lead.id, 0))
              .catch((err: Error) => req.log?.warn({ leadId: lead.id, err: err.message }, 'lead queued by the sweep instead'));
          }
          res.status(202).json({ id: lead.id, status: lead.status });
        },
      ];
    },
  },
];
