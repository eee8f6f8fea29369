import type { Knex } from 'knex';
import { claimLead, failLead, finishLead, type LeadContact, leadIdOfJobKey, leadRetriesOfJobKey, reopenFailedLeadForJob } from '../../db/leads.js';
import type { Logger } from '../../lib/logger.js';
import type { Mailer } from '../../lib/mailer.js';
import { UnrecoverableError } from '../job-queue.js';
import { leadMail } from './lead-mail.js';

export interface LeadDeps {
  db: Knex;
  mailer: Mailer;
  logger: Logger;
}

/**
 * SMTP's verdict on an error (PITFALLS §1.3): 5xx replies and envelope errors are permanent;
 * 4xx replies, timeouts and connection errors are worth retrying.
 */
export function isPermanent(err: unknown): boolean {
  const e = err as { responseCode?: number; code?: string };
  if (typeof e.responseCode === 'number') return e.responseCode >= 500;
  return e.code === 'EENVELOPE' || e.code === 'EMESSAGE';
}

/**
 * The delivery job: claims the lead (a job run twice, or a lead another worker is sending, does
 * nothing), sends the mail, records the outcome. Temporary failures put the lead back to pending
 * and throw so the queue retries with backoff; a permanent rejection fails it at once.
 */
export async function deliverLead(deps: LeadDeps, jobKey: string): Promise<{ leadId: string; status: string }> {
  const id = leadIdOfJobKey(jobKey);
  let lead = await claimLead(deps.db, id);
  // A job runs for a failed lead only when an operator retried it on the board: deliver again.
  if (!lead && (await reopenFailedLeadForJob(deps.db, id, leadRetriesOfJobKey(jobKey)))) lead = await claimLead(deps.db, id);
  if (!lead) return { leadId: id, status: 'skipped' };
  const listing = await deps
    .db('listings')
    .where({ listing_key: lead.listing_key })
    .first(deps.db.raw("data->'headline' AS headline"), deps.db.raw("data->'address' AS address"));
  const mail = leadMail({
    to: lead.recipient,
    contact: lead.contact as LeadContact,
    listing: { office: lead.office, uniqueId: lead.unique_id, headline: listing?.headline ?? null, address: listing?.address ?? null },
  });
  try {
    await deps.mailer.send({ ...mail, messageId: `<lead-${id}@listing-service>` });
  } catch (err) {
    const message = (err as Error).message;
    if (isPermanent(err)) {
      await finishLead(deps.db, id, { status: 'failed', error: message });
      deps.logger.warn({ leadId: id, err: message }, 'lead delivery rejected permanently');
      throw new UnrecoverableError(message);
    }
    await finishLead(deps.db, id, { status: 'pending', error: message });
    throw err;
  }
  await finishLead(deps.db, id, { status: 'delivered' });
  deps.logger.info({ leadId: id, attempts: lead.attempts }, 'lead delivered');
  return { leadId: id, status: 'delivered' };
}

/** When retries are exhausted. */
export async function giveUpLead(deps: LeadDeps, jobKey: string, err: Error): Promise<void> {
  await failLead(deps.db, leadIdOfJobKey(jobKey), err.message);
}
