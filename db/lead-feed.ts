import type { Knex } from 'knex';
import { iso, isoOrNull } from './row-values.js';
import type * as Row from './rows.js';

/**
 * Leads as a feed key reads them (docs/leads.md, For the CRM): its offices' leads only, newest
 * first, purged ones gone.
 *
 * Incremental pulls go by database snapshot, not by time or by a sequence number: each lead
 * records the transaction that wrote it (leads.txid), and every answer is read in one snapshot,
 * which it hands back as `since`. The next pull asks for the leads that snapshot could not see:
 * written by a transaction that had not committed when it was taken. A lead whose transaction
 * began first but committed last is therefore seen by the next pull, and a lead is never seen by
 * two pulls. A pull's later pages keep its first page's snapshot, so a lead committed while a
 * client pages is left for its next pull instead of shifting the pages.
 */

/** What a page cursor holds: the snapshot the pull reads in, the one it pulls since, and the last lead shown. */
interface PageCursor {
  view: string;
  since: string | null;
  createdAt: string;
  id: string;
}

/** A pg_snapshot's text: xmin:xmax:xip,xip… (ids in decimal). */
const SNAPSHOT = /^\d{1,20}:\d{1,20}:(\d{1,20}(,\d{1,20})*)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

export class LeadCursorError extends Error {}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
function decode(token: string, what: string): unknown {
  try {
    return JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new LeadCursorError(`${what} is not a value this API gave`);
  }
}

/** A `since` token: the snapshot an earlier answer was read in. */
export function sinceSnapshot(token: string): string {
  const value = decode(token, 'since') as { s?: unknown };
  if (typeof value?.s !== 'string' || !SNAPSHOT.test(value.s)) throw new LeadCursorError('since is not a value this API gave');
  return value.s;
}

function pageCursor(token: string): PageCursor {
  const c = decode(token, 'cursor') as Partial<PageCursor>;
  const ok =
    typeof c?.view === 'string' &&
    SNAPSHOT.test(c.view) &&
    (c.since === null || (typeof c.since === 'string' && SNAPSHOT.test(c.since))) &&
    typeof c.createdAt === 'string' &&
    MICRO_TIME.test(c.createdAt) &&
    typeof c.id === 'string' &&
    UUID.test(c.id);
  if (!ok) throw new LeadCursorError('cursor is not a value this API gave');
  return c as PageCursor;
}

export interface KeyLeadsQuery {
  offices: string[];
  office?: string;
  status?: string;
  since?: string;
  cursor?: string;
  limit: number;
}

/** Full time with microseconds (a JS date keeps milliseconds: a cursor must not lose order). */
const MICROS = `to_char(l.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const LEAD_COLUMNS = `l.id, l.status, l.listing_key, l.office, l.unique_id, l.contact, l.recipient, l.recipient_source, l.attempts,
  l.last_error, l.created_at, l.delivered_at, l.acknowledged_at, l.acknowledged_by, l.delivery, l.fallback_at, l.fell_back_at, ${MICROS} AS created_micros, li.data->'headline' AS headline`;

export interface KeyLead {
  id: string;
  createdAt: string;
  listing: { listingKey: string; office: string; uniqueId: string; headline: Record<string, string> | null };
  contact: { name: string | null; email: string; phone: string | null; message: string };
  consent: true;
  delivery: {
    mode: string;
    email: {
      status: string;
      recipient: string | null;
      recipientSource: string | null;
      attempts: number;
      deliveredAt: string | null;
      lastError: string | null;
      fallbackAt: string | null;
      fellBackAt: string | null;
    };
    webhooks: { endpointId: string; deliveryId: string; status: string; attempts: number; lastAttemptAt: string | null; deliveredAt: string | null }[];
    crm: { acknowledgedAt: string | null; acknowledgedByThisKey: boolean };
  };
}

/** A lead as LEAD_COLUMNS reads it, with its listing's headline. */
type KeyLeadRow = Pick<
  Row.Lead,
  | 'id'
  | 'status'
  | 'listing_key'
  | 'office'
  | 'unique_id'
  | 'contact'
  | 'recipient'
  | 'recipient_source'
  | 'attempts'
  | 'last_error'
  | 'created_at'
  | 'delivered_at'
  | 'acknowledged_at'
  | 'acknowledged_by'
  | 'delivery'
  | 'fallback_at'
  | 'fell_back_at'
> & { created_micros: string; headline: Record<string, string> | null };

const toLead = (r: KeyLeadRow, webhooks: KeyLead['delivery']['webhooks'], keyId: string): KeyLead => ({
  id: r.id,
  createdAt: iso(r.created_at),
  listing: { listingKey: r.listing_key, office: r.office, uniqueId: r.unique_id, headline: r.headline ?? null },
  contact: { name: r.contact.name ?? null, email: r.contact.email, phone: r.contact.phone ?? null, message: r.contact.message },
  // An enquiry is only taken with the consumer's consent to share it with the office.
  consent: true,
  delivery: {
    mode: r.delivery,
    email: {
      status: r.status,
      recipient: r.recipient ?? null,
      recipientSource: r.recipient_source ?? null,
      attempts: r.attempts,
      deliveredAt: isoOrNull(r.delivered_at),
      lastError: r.last_error ?? null,
      fallbackAt: isoOrNull(r.fallback_at),
      fellBackAt: isoOrNull(r.fell_back_at),
    },
    webhooks,
    crm: { acknowledgedAt: isoOrNull(r.acknowledged_at), acknowledgedByThisKey: r.acknowledged_by === keyId },
  },
});

/** The lead.created deliveries of these leads to the key's own endpoints. */
async function webhookStates(db: Knex, keyId: string, leadIds: string[]): Promise<Map<string, KeyLead['delivery']['webhooks']>> {
  const states = new Map<string, KeyLead['delivery']['webhooks']>(leadIds.map((id) => [id, []]));
  if (leadIds.length === 0) return states;
  const rows = await db('webhook_deliveries as d')
    .join('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .where('e.key_id', keyId)
    .whereIn('d.lead_id', leadIds)
    .orderBy('d.seq')
    .select('d.lead_id', 'd.id', 'd.endpoint_id', 'd.status', 'd.attempts', 'd.last_attempt_at', 'd.delivered_at');
  for (const r of rows)
    states.get(r.lead_id)?.push({
      endpointId: r.endpoint_id,
      deliveryId: r.id,
      status: r.status,
      attempts: r.attempts,
      lastAttemptAt: isoOrNull(r.last_attempt_at),
      deliveredAt: isoOrNull(r.delivered_at),
    });
  return states;
}

/**
 * A page of the key's leads, newest first: with `since`, only those committed after the answer
 * that gave it; with `cursor`, the page after the one that gave it (in that pull's snapshot).
 * `next` continues the pull (null on its last page); `since` is where the next pull starts.
 */
export async function keyLeads(db: Knex, keyId: string, query: KeyLeadsQuery): Promise<{ leads: KeyLead[]; next: string | null; since: string }> {
  const cursor = query.cursor ? pageCursor(query.cursor) : null;
  const since = cursor ? cursor.since : query.since ? sinceSnapshot(query.since) : null;
  const offices = query.office ? query.offices.filter((o) => o === query.office) : query.offices;
  const where: string[] = ["l.status <> 'purged'", 'l.office = ANY(?::text[])'];
  const bindings: Knex.Value[] = [offices];
  if (query.status) {
    where.push('l.status = ?');
    bindings.push(query.status);
  }
  if (since) {
    where.push('NOT pg_visible_in_snapshot(l.txid, ?::pg_snapshot)');
    bindings.push(since);
  }
  if (cursor) {
    where.push('pg_visible_in_snapshot(l.txid, ?::pg_snapshot)', '(l.created_at, l.id) < (?::timestamptz, ?::uuid)');
    bindings.push(cursor.view, cursor.createdAt, cursor.id);
  }
  // One statement: the rows and the snapshot they were read in are the same.
  const { rows } = await db.raw(
    `SELECT snap.s::text AS snapshot, r.* FROM (SELECT pg_current_snapshot() AS s) snap
       LEFT JOIN LATERAL (
         SELECT ${LEAD_COLUMNS} FROM leads l LEFT JOIN listings li ON li.listing_key = l.listing_key
          WHERE ${where.join(' AND ')}
          ORDER BY l.created_at DESC, l.id DESC
          LIMIT ?) r ON true`,
    [...bindings, query.limit + 1],
  );
  const view = cursor ? cursor.view : (rows[0].snapshot as string);
  // The snapshot row alone (no lead) has a null id.
  const found = (rows as (KeyLeadRow | { id: null })[]).filter((r): r is KeyLeadRow => r.id !== null);
  const page = found.slice(0, query.limit);
  const states = await webhookStates(
    db,
    keyId,
    page.map((r) => r.id),
  );
  const last = page.at(-1);
  return {
    leads: page.map((r) => toLead(r, states.get(r.id) ?? [], keyId)),
    next: found.length > query.limit && last ? encode({ view, since, createdAt: last.created_micros, id: last.id }) : null,
    since: encode({ s: view }),
  };
}

/** One lead of the key's offices, in full; null when there is none, it is another office's, or it was purged. */
export async function keyLead(db: Knex, keyId: string, offices: string[], id: string): Promise<KeyLead | null> {
  const { rows } = await db.raw(
    `SELECT ${LEAD_COLUMNS} FROM leads l LEFT JOIN listings li ON li.listing_key = l.listing_key
      WHERE l.id = ? AND l.office = ANY(?::text[]) AND l.status <> 'purged'`,
    [id, offices],
  );
  if (rows.length === 0) return null;
  const states = await webhookStates(db, keyId, [id]);
  return toLead(rows[0], states.get(id) ?? [], keyId);
}

/**
 * A CRM acknowledges a lead of its key's offices: it has it. The first acknowledgement is kept
 * (when, and by which key); another is answered with it. Null when the key cannot see the lead.
 * On CRM delivery the acknowledgement settles the email path: a mail still waiting, released but
 * not yet sent, failed or without a recipient is no longer needed (crm_acknowledged); a mail being
 * sent or sent stays as it is.
 */
export async function acknowledgeLead(
  db: Knex,
  keyId: string,
  offices: string[],
  id: string,
): Promise<{ id: string; acknowledgedAt: string; acknowledgedByThisKey: boolean; already: boolean } | null> {
  const visible = (q: Knex.QueryBuilder) => q.where({ id }).whereIn('office', offices).whereNot({ status: 'purged' });
  const [row] = await visible(db('leads'))
    .whereNull('acknowledged_at')
    .update({
      acknowledged_at: db.fn.now(),
      acknowledged_by: keyId,
      updated_at: db.fn.now(),
      status: db.raw(`CASE WHEN delivery = 'crm' AND status IN ('awaiting_crm', 'pending', 'failed', 'dead_letter') THEN 'crm_acknowledged' ELSE status END`),
    })
    .returning(['acknowledged_at', 'acknowledged_by']);
  const acked = row ?? (await visible(db('leads')).first('acknowledged_at', 'acknowledged_by'));
  if (!acked) return null;
  return { id, acknowledgedAt: iso(acked.acknowledged_at), acknowledgedByThisKey: acked.acknowledged_by === keyId, already: !row };
}
