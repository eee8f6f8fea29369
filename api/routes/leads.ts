import { type RequestHandler, Router } from 'express';
import { badRequest } from '../../lib/errors.js';
import { jsonBody } from '../middleware/json-body.js';
import type { LeadRequest } from '../schemas/leads.js';
import { acceptEnquiry, type LeadIntakeDeps } from '../services/lead-intake.js';
import { assertValid } from '../validators.js';

export interface LeadsDeps extends LeadIntakeDeps {
  /** The enquiry rate limit (it counts its own refusals). */
  limit: RequestHandler;
}

/**
 * POST /v1/leads (docs/architecture.md, Leads): a valid enquiry with consent, made a lead by
 * acceptEnquiry. Once 202 is answered the lead is in the database and will be delivered.
 */
export function leadsRouter(deps: LeadsDeps): Router {
  const router = Router();
  router.post('/v1/leads', deps.limit, jsonBody('32kb'), async (req, res) => {
    const body = assertValid<LeadRequest>('LeadRequest', req.body ?? null, 'body');
    if (body.consent !== true) throw badRequest('body.consent must be true: the enquiry is shared with the office');
    res.status(202).json(await acceptEnquiry(deps, body, req.ip, req.log));
  });
  return router;
}
