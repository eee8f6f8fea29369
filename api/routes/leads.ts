import { badRequest } from '../../lib/errors.js';
import { jsonBody } from '../middleware/json-body.js';
import { errorResponse, json } from '../openapi-helpers.js';
import type { RouteSpec } from '../route-registry.js';
import type { LeadRequest } from '../schemas/leads.js';
import { acceptEnquiry } from '../services/lead-intake.js';

/**
 * POST /v1/leads (docs/architecture.md, Leads): a valid enquiry with consent, made a lead by
 * acceptEnquiry. Once 202 is answered the lead is in the database and will be delivered.
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
      const { config } = deps;
      const intake = {
        db: deps.db,
        leadQueue: deps.leadQueue,
        webhookQueue: deps.webhookQueue,
        turnstile: config.turnstileSecret ? { secret: config.turnstileSecret, verifyUrl: config.turnstileVerifyUrl } : null,
        refusals: deps.refusals,
        crmWaitMs: config.leadCrmWaitMs,
      };
      // A 503 (the service unable to take it) does not use up the sender's allowance.
      const limit = deps.limit('lead', config.leadRateLimit, { countUnavailable: false, onRefused: () => deps.refusals?.count('rate_limited') });
      return [
        limit,
        jsonBody('32kb'),
        async (req, res) => {
          const body = validBody<LeadRequest>(req);
          if (body.consent !== true) throw badRequest('body.consent must be true: the enquiry is shared with the office');
          res.status(202).json(await acceptEnquiry(intake, body, req.ip, req.log));
        },
      ];
    },
  },
];
