import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { singleMailbox } from '../pipeline/email-address.js';
import { listingKey } from '../pipeline/listing-key.js';
import { READABLE_STATUSES } from '../pipeline/listing-statuses.js';
import { iso, isoOrNull, likePattern, offsetPage } from './row-values.js';
import type * as Row from './rows.js';
import { LEAD_DELIVERY_MODES, LEAD_STATUSES, type LeadContact, type LeadDelivery, type LeadStatus } from './rows.js';
import { LEAD_SORTS, orderBySql } from './sort-order.js';
import { insertDeliveries, leadEndpoints } from './webhooks.js';

/** The choice of an office that made none: both paths, as before the choice existed. */
export const DEFAULT_LEAD_DELIVERY: LeadDelivery = 'both';

export { LEAD_DELIVERY_MODES, LEAD_STATUSES, type LeadContact, type LeadDelivery, type LeadStatus };

const NO_RECIPIENT = 'no recipient: no listing agent with an email and no office lead email';

/** What a lead mail says about the listing. */
export interface LeadListing {
  listingKey: string;
  office: string;
  uniqueId: string;
  headline: Record<string, string> | null;
  address: Record<string, unknown> | null;
  agents: { name: string | null; email: string | null }[];
}

/** A listing a consumer may enquire about: public, or sold/leased (not hidden, not withheld by its source, not archived). */
export async function enquirableListing(db: Knex, office: string, uniqueId: string): Promise<LeadListing | null> {
  const row = await db('listings')
    .where({ listing_key: listingKey(office, uniqueId), is_shown: true })
    .whereIn('status', [...READABLE_STATUSES])
    .first(
      'listing_key',
      'office',
      'unique_id',
      db.raw("data->'headline' AS headline"),
      db.raw("data->'address' AS address"),
      db.raw("coalesce(data->'agents', '[]'::jsonb) AS agents"),
    );
  return row
    ? { listingKey: row.listing_key, office: row.office, uniqueId: row.unique_id, headline: row.headline, address: row.address, agents: row.agents }
    : null;
}

/**
 * Lead routing: the first listing agent whose email is one valid address, else the office's lead
 * email, else none. Exactly one recipient, checked again here so a record stored before emails were
 * checked cannot relay an enquiry to a list of addresses.
 */
export async function leadRecipient(db: Knex, listing: LeadListing): Promise<{ recipient: string; source: 'agent' | 'office' } | null> {
  for (const agent of listing.agents) {
    const email = agent.email ? singleMailbox(agent.email) : null;
    if (email) return { recipient: email, source: 'agent' };
  }
  const office = await db('office_settings').where({ office: listing.office }).first('lead_email');
  const email = office?.lead_email ? singleMailbox(office.lead_email) : null;
  return email ? { recipient: email, source: 'office' } : null;
}

/** How an office's leads are delivered (its setting, or the default). */
export async function officeLeadDelivery(db: Knex, office: string): Promise<LeadDelivery> {
  const row = await db('office_settings').where({ office }).first('lead_delivery');
  return (row?.lead_delivery as LeadDelivery | undefined) ?? DEFAULT_LEAD_DELIVERY;
}

/** Whether any active feed key covers the office: a CRM that could acknowledge its leads. */
async function officeHasActiveKey(db: Knex, office: string): Promise<boolean> {
  const row = await db('feed_keys').where({ status: 'active' }).whereRaw('? = ANY(office_ids)', [office]).first(db.raw('1 AS one'));
  return Boolean(row);
}

/**
 * Stores a lead under its office's delivery choice and, in the same transaction, its lead.created
 * event for every active endpoint subscribed to it of every active key whose offices include the
 * listing's office (not on email-only delivery): the event exists exactly when the lead does (a
 * lead that rolls back raises nothing; a process that dies after the commit loses nothing, as the
 * sweep sends stored deliveries). `payload` makes the event's JSON (ids only, never the consumer's
 * details). On CRM delivery the mail waits `crmWaitMs` for an acknowledgement (awaiting_crm); with
 * no active key to acknowledge it, it is mailed at once (fell back on arrival). Returns the status
 * (pending: queue its mail now) and the endpoints to wake.
 */
export async function insertLead(
  db: Knex,
  lead: { listing: LeadListing; contact: LeadContact; recipient: { recipient: string; source: string } | null },
  payload: (data: LeadCreatedData) => string,
  crmWaitMs: number,
): Promise<{ id: string; status: LeadStatus; endpoints: string[] }> {
  const id = randomUUID();
  return db.transaction(async (trx) => {
    const delivery = await officeLeadDelivery(trx, lead.listing.office);
    const waits = delivery === 'crm' && (await officeHasActiveKey(trx, lead.listing.office));
    const status: LeadStatus = waits ? 'awaiting_crm' : lead.recipient ? 'pending' : 'dead_letter';
    const [row] = await trx('leads')
      .insert({
        id,
        status,
        delivery,
        fallback_at: waits ? trx.raw('now() + make_interval(secs => ?)', [crmWaitMs / 1000]) : null,
        fell_back_at: delivery === 'crm' && !waits ? trx.fn.now() : null,
        listing_key: lead.listing.listingKey,
        office: lead.listing.office,
        unique_id: lead.listing.uniqueId,
        contact: JSON.stringify(lead.contact),
        recipient: lead.recipient?.recipient ?? null,
        recipient_source: lead.recipient?.source ?? null,
        last_error: lead.recipient || waits ? null : NO_RECIPIENT,
      })
      .returning('created_at');
    const endpoints = delivery === 'email' ? [] : await leadEndpoints(trx, lead.listing.office);
    if (endpoints.length > 0) {
      const body = payload({
        leadId: id,
        listingKey: lead.listing.listingKey,
        office: lead.listing.office,
        uniqueId: lead.listing.uniqueId,
        createdAt: iso(row.created_at),
        leadUrl: `/v1/leads/${id}`,
      });
      await insertDeliveries(
        trx,
        endpoints.map((endpointId) => ({ endpointId, type: 'lead.created', feedId: null, leadId: id, payload: body })),
      );
    }
    return { id, status, endpoints };
  });
}

/** What a lead.created event says: ids and where to read the lead, never the consumer's details. */
export interface LeadCreatedData {
  leadId: string;
  listingKey: string;
  office: string;
  uniqueId: string;
  createdAt: string;
  leadUrl: string;
}

/**
 * Leads on CRM delivery that no CRM acknowledged by their fallback time are mailed as on email
 * delivery (dead-lettered when they have no recipient), so no enquiry is lost because a CRM is
 * down. Returns the released leads with their queue keys (the pending ones need a job).
 */
export async function releaseUnacknowledgedLeads(db: Knex, limit = 200): Promise<{ id: string; key: string; status: LeadStatus }[]> {
  const { rows } = await db.raw(
    `UPDATE leads SET
        status = CASE WHEN recipient IS NULL THEN 'dead_letter' ELSE 'pending' END,
        last_error = CASE WHEN recipient IS NULL THEN ? ELSE last_error END,
        fell_back_at = now(), updated_at = now()
      WHERE id IN (SELECT id FROM leads WHERE status = 'awaiting_crm' AND fallback_at <= now()
                    ORDER BY fallback_at LIMIT ? FOR UPDATE SKIP LOCKED)
        AND status = 'awaiting_crm' AND acknowledged_at IS NULL
      RETURNING id, retries, status`,
    [NO_RECIPIENT, limit],
  );
  return rows.map((r: { id: string; retries: number; status: LeadStatus }) => ({ id: r.id, key: leadJobKey(r.id, r.retries), status: r.status }));
}

/** Seconds a `sending` claim is honoured; after that a crashed sender's lead may be claimed again. */
const SENDING_LEASE_S = 300;

/** Leads a sender may claim: pending, or sending under a lease that has lapsed (its sender died). */
const claimable = (db: Knex) => (w: Knex.QueryBuilder) =>
  w
    .where({ status: 'pending' })
    .orWhere((s) => s.where({ status: 'sending' }).where('sending_at', '<', db.raw(`now() - interval '${SENDING_LEASE_S} seconds'`)));

/**
 * Claims a lead for sending: pending, or sending with a lapsed lease. null when it is delivered,
 * failed, purged, dead-lettered or being sent right now: a job run twice never sends twice.
 */
export async function claimLead(db: Knex, id: string) {
  const [row] = await db('leads')
    .where({ id })
    .where(claimable(db))
    .update({ status: 'sending', sending_at: db.fn.now(), attempts: db.raw('attempts + 1'), updated_at: db.fn.now() })
    .returning('*');
  return row ?? null;
}

export async function finishLead(db: Knex, id: string, outcome: { status: 'delivered' } | { status: 'pending' | 'failed'; error: string }): Promise<void> {
  const changes: Record<string, unknown> = { status: outcome.status, sending_at: null, updated_at: db.fn.now() };
  if (outcome.status === 'delivered') Object.assign(changes, { delivered_at: db.fn.now(), last_error: null });
  else changes.last_error = outcome.error;
  await db('leads').where({ id, status: 'sending' }).update(changes);
}

/** When the queue gives up: a lead still pending or sending becomes failed. */
export async function failLead(db: Knex, id: string, error: string): Promise<void> {
  await db('leads')
    .where({ id })
    .whereIn('status', ['pending', 'sending'])
    .update({ status: 'failed', last_error: error, sending_at: null, updated_at: db.fn.now() });
}

/**
 * A delivery job retried from the queue's board for a failed lead: it is this lead's current job
 * (same retry count), so the operator asked for it to run again: failed -> pending. True if reopened.
 */
export async function reopenFailedLeadForJob(db: Knex, id: string, retries: number): Promise<boolean> {
  const n = await db('leads').where({ id, status: 'failed', retries }).update({ status: 'pending', updated_at: db.fn.now() });
  return n > 0;
}

/**
 * An operator sends a failed or undeliverable (dead-letter) lead again. It is routed afresh from
 * the listing as stored now (the first agent with one valid email, else the office's lead email),
 * so a lead that had nowhere to go reaches the office once its lead email is set, and a lead whose
 * agent's address bounced goes to the address the feed carries now. Its last error is cleared
 * (returned as previousError, for the audit log): until the new attempt ends there is none.
 */
export async function retryLead(
  db: Knex,
  id: string,
): Promise<{ retries: number; recipient: string; previousError: string | null } | { missing: true } | { status: LeadStatus } | { noRecipient: true }> {
  const lead = await db('leads').where({ id }).first('status', 'listing_key', 'office', 'unique_id', 'last_error');
  if (!lead) return { missing: true };
  if (lead.status !== 'failed' && lead.status !== 'dead_letter') return { status: lead.status };
  const stored = await db('listings').where({ listing_key: lead.listing_key }).first(db.raw(`coalesce(data->'agents', '[]'::jsonb) AS agents`));
  const routed = await leadRecipient(db, {
    listingKey: lead.listing_key,
    office: lead.office,
    uniqueId: lead.unique_id,
    headline: null,
    address: null,
    agents: stored?.agents ?? [],
  });
  if (!routed) return { noRecipient: true };
  const [row] = await db('leads')
    .where({ id })
    .whereIn('status', ['failed', 'dead_letter'])
    // The error was the last attempt's: the retry starts afresh (the audit entry keeps it).
    .update({
      status: 'pending',
      retries: db.raw('retries + 1'),
      recipient: routed.recipient,
      recipient_source: routed.source,
      last_error: null,
      updated_at: db.fn.now(),
    })
    .returning('retries');
  if (row) return { retries: row.retries, recipient: routed.recipient, previousError: lead.last_error ?? null };
  const current = await db('leads').where({ id }).first('status');
  return current ? { status: current.status } : { missing: true };
}

/**
 * Leads whose delivery was lost, oldest first: pending and untouched for a while (their job never
 * ran), or sending under a lapsed lease (their sender died, or could not record what it did).
 * With their queue keys; leaseLapsed for the second kind.
 */
export async function lostLeads(db: Knex, olderThanMs: number): Promise<{ id: string; key: string; leaseLapsed: boolean }[]> {
  const rows = await db('leads')
    .where(claimable(db))
    .where('updated_at', '<', db.raw('now() - make_interval(secs => ?)', [olderThanMs / 1000]))
    .orderBy('updated_at')
    .limit(200)
    .select('id', 'retries', 'status');
  return rows.map((r: Pick<Row.Lead, 'id' | 'retries' | 'status'>) => ({ id: r.id, key: leadJobKey(r.id, r.retries), leaseLapsed: r.status === 'sending' }));
}

/** Queue key of a lead's delivery: one per operator retry, so a retried lead gets a fresh job. */
export const leadJobKey = (id: string, retries: number) => `${id}~${retries}`;
export const leadIdOfJobKey = (key: string) => key.split('~')[0];
export const leadRetriesOfJobKey = (key: string) => Number(key.split('~')[1] ?? 0);

/** Erases the contact data of leads older than the retention: status purged. Returns how many. */
export async function purgeLeads(db: Knex, retentionDays: number): Promise<number> {
  return db('leads')
    .whereNot({ status: 'purged' })
    .where('created_at', '<', db.raw('now() - make_interval(days => ?)', [retentionDays]))
    .update({ status: 'purged', contact: JSON.stringify({ erased: true }), purged_at: db.fn.now(), updated_at: db.fn.now() });
}

export async function listLeads(db: Knex, query: { status?: LeadStatus; sender?: string; sort?: string; limit: number; offset: number }) {
  const base = () => {
    const q = db('leads');
    if (query.status) q.where({ status: query.status });
    if (query.sender) q.whereRaw("lower(contact->>'email') LIKE ? ESCAPE '\\'", [likePattern(query.sender)]);
    return q;
  };
  const { rows, total } = await offsetPage<Row.Lead>(base, (q) => q.orderByRaw(orderBySql(query.sort ?? '-received', LEAD_SORTS, 'id')), query);
  const events = await leadEventCounts(
    db,
    rows.map((r) => r.id),
  );
  return {
    total,
    leads: rows.map((r) => ({
      id: r.id,
      status: r.status,
      listing: { office: r.office, uniqueId: r.unique_id, listingKey: r.listing_key },
      contact: r.contact,
      recipient: r.recipient,
      recipientSource: r.recipient_source,
      attempts: r.attempts,
      retries: r.retries,
      lastError: r.last_error,
      createdAt: iso(r.created_at),
      deliveredAt: isoOrNull(r.delivered_at),
      purgedAt: isoOrNull(r.purged_at),
      delivery: {
        mode: r.delivery,
        fallbackAt: isoOrNull(r.fallback_at),
        fellBackAt: isoOrNull(r.fell_back_at),
        acknowledgedAt: isoOrNull(r.acknowledged_at),
        webhooks: events.get(r.id) ?? { pending: 0, delivered: 0, abandoned: 0 },
      },
    })),
  };
}

/** Each lead's lead.created events by state. */
async function leadEventCounts(db: Knex, ids: string[]): Promise<Map<string, { pending: number; delivered: number; abandoned: number }>> {
  const counts = new Map<string, { pending: number; delivered: number; abandoned: number }>();
  if (ids.length === 0) return counts;
  const rows = await db('webhook_deliveries').whereIn('lead_id', ids).groupBy('lead_id', 'status').select('lead_id', 'status').count({ n: '*' });
  for (const r of rows as { lead_id: string; status: 'pending' | 'delivered' | 'abandoned'; n: string | number }[]) {
    const c = counts.get(r.lead_id) ?? { pending: 0, delivered: 0, abandoned: 0 };
    c[r.status] = Number(r.n);
    counts.set(r.lead_id, c);
  }
  return counts;
}
