import { type RequestHandler, Router } from 'express';
import type { Knex } from 'knex';
import { isBlocked } from '../../db/blocklist.js';
import type { RefusalCounter, RefusalReason } from '../../db/lead-refusals.js';
import { enquirableListing, insertLead, leadJobKey, leadRecipient } from '../../db/leads.js';
import { badRequest, HttpError, notFound } from '../../lib/errors.js';
import type { JobQueue } from '../../workers/job-queue.js';
import { webhookPayload } from '../../workers/webhooks/webhook-events.js';
import { botRejection, REJECTED } from '../bot-check.js';
import { jsonBody } from '../middleware/json-body.js';
import type { LeadRequest } from '../schemas/leads.js';
import { assertValid } from '../validators.js';

export interface LeadsDeps {
  db: Knex;
  leadQueue: JobQueue;
  /** Where the lanes of endpoints told of a new lead (lead.created) are queued (absent: the sweep sends them). */
  webhookQueue?: JobQueue;
  limit: RequestHandler;
  turnstile: { secret: string; verifyUrl: string } | null;
  /** Counts enquiries refused before they became leads (the console shows them); `limit` counts its own refusals. */
  refusals?: RefusalCounter;
  /** How long a lead on CRM delivery waits for an acknowledgement before it is mailed. */
  crmWaitMs: number;
}

const forbidden = (message: string) => new HttpError(403, message);

/**
 * POST /v1/leads with its checks in order (docs/architecture.md, Leads). Once 202 is answered the lead is in the
 * database; queueing its delivery is best effort here, and the sweep queues any pending lead
 * whose job did not make it (Redis away), so an accepted lead is always delivered.
 */
export function leadsRouter(deps: LeadsDeps): Router {
  const router = Router();
  const refused = (reason: RefusalReason) => deps.refusals?.count(reason);
  router.post('/v1/leads', deps.limit, jsonBody('32kb'), async (req, res) => {
    const body = assertValid<LeadRequest>('LeadRequest', req.body ?? null, 'body');
    if (body.consent !== true) throw badRequest('body.consent must be true: the enquiry is shared with the office');
    const bot = await botRejection(deps.turnstile, body, req.ip);
    if (bot) {
      refused('bot_check');
      throw forbidden(bot);
    }
    if (await isBlocked(deps.db, body.contact.email)) {
      refused('blocked');
      throw forbidden(REJECTED);
    }
    const listing = await enquirableListing(deps.db, body.listing.office, body.listing.uniqueId);
    if (!listing) {
      refused('unknown_listing');
      throw notFound(`no listing ${body.listing.office}/${body.listing.uniqueId} to enquire about`);
    }
    const recipient = await leadRecipient(deps.db, listing);
    const contact = {
      email: body.contact.email.trim(),
      message: body.contact.message,
      ...(body.contact.name ? { name: body.contact.name } : {}),
      ...(body.contact.phone ? { phone: body.contact.phone } : {}),
    };
    const lead = await insertLead(
      deps.db,
      { listing, contact, recipient },
      (data) => webhookPayload({ type: 'lead.created', data: { ...data } }),
      deps.crmWaitMs,
    );
    // The lead.created events are stored with the lead; waking their lanes is best effort (the sweep sends them otherwise).
    for (const endpointId of lead.endpoints) await deps.webhookQueue?.requeue(endpointId).catch(() => undefined);
    if (lead.status === 'pending') {
      await deps.leadQueue
        .add(leadJobKey(lead.id, 0))
        .catch((err: Error) => req.log?.warn({ leadId: lead.id, err: err.message }, 'lead queued by the sweep instead'));
    }
    res.status(202).json({ id: lead.id, status: lead.status });
  });
  return router;
}
