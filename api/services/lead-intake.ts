import type { Knex } from 'knex';
import { isBlocked } from '../../db/blocklist.js';
import type { RefusalCounter, RefusalReason } from '../../db/lead-refusals.js';
import { enquirableListing, insertLead, leadJobKey, leadRecipient } from '../../db/leads.js';
import { HttpError, notFound } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { JobQueue } from '../../workers/job-queue.js';
import { webhookPayload } from '../../workers/webhooks/webhook-events.js';
import { botRejection, REJECTED } from '../bot-check.js';
import type { LeadRequest } from '../schemas/leads.js';

export interface LeadIntakeDeps {
  db: Knex;
  leadQueue: JobQueue;
  /** Where the lanes of endpoints told of a new lead (lead.created) are queued (absent: the sweep sends them). */
  webhookQueue?: JobQueue;
  turnstile: { secret: string; verifyUrl: string } | null;
  /** Counts enquiries refused before they became leads (the console shows them). */
  refusals?: RefusalCounter;
  /** How long a lead on CRM delivery waits for an acknowledgement before it is mailed. */
  crmWaitMs: number;
}

const forbidden = (message: string) => new HttpError(403, message);

/**
 * An enquiry (already valid, with consent) made a lead, with its checks in order: the bot check
 * (403), the blocklist (403, saying no more than a bot's refusal), a listing that can be enquired
 * about (404); each refusal counted. The lead is stored with its recipient and its lead.created
 * events; waking their webhook lanes and queueing its delivery are best effort (the sweep queues
 * any pending lead whose job did not make it), so an accepted lead is always delivered.
 */
export async function acceptEnquiry(deps: LeadIntakeDeps, body: LeadRequest, ip: string | undefined, log?: Logger): Promise<{ id: string; status: string }> {
  const refused = (reason: RefusalReason) => deps.refusals?.count(reason);
  const bot = await botRejection(deps.turnstile, body, ip);
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
  for (const endpointId of lead.endpoints) await deps.webhookQueue?.requeue(endpointId).catch(() => undefined);
  if (lead.status === 'pending') {
    await deps.leadQueue
      .add(leadJobKey(lead.id, 0))
      .catch((err: Error) => log?.warn({ leadId: lead.id, err: err.message }, 'lead queued by the sweep instead'));
  }
  return { id: lead.id, status: lead.status };
}
