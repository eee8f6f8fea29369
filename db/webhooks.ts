import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { camelColumns, iso, isoOrNull, offsetPage } from './row-values.js';
import type * as Row from './rows.js';

export const WEBHOOK_EVENTS = [
  'feed.completed',
  'feed.failed',
  'feed.quarantined',
  'listing.archived',
  'listing.status_changed',
  'listing.price_changed',
  'lead.created',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
/** What an endpoint may subscribe to (webhook.test is sent on request only). */
export const SUBSCRIBABLE_EVENTS = WEBHOOK_EVENTS.filter((e) => e !== 'webhook.test');

/** A new signing secret in Standard Webhooks' form: whsec_ and 32 random bytes in base64. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** After a rotation the old secret still signs (a second signature) this long, so receivers can switch over. */
export const PREVIOUS_SECRET_HOURS = 24;
/**
 * The most earlier secrets an endpoint keeps signing with at once (each for its own 24 hours): a
 * rotation past that is refused until the oldest one's grace ends, so a delivery carries at most
 * this many signatures beside the current one.
 */
export const MAX_PREVIOUS_SECRETS = 4;

/** An earlier secret and when its grace ends (ISO-8601). */
export interface PreviousSecret {
  secret: string;
  until: string;
}

/** The secrets a delivery sent at `at` is signed with: the current one, then each earlier one still in its grace. */
export function signingSecrets(endpoint: { secret: string; previous_secrets: PreviousSecret[] }, at: Date): string[] {
  return [endpoint.secret, ...endpoint.previous_secrets.filter((p) => new Date(p.until) > at).map((p) => p.secret)];
}

export interface WebhookEndpoint {
  id: string;
  keyId: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'active' | 'disabled';
  failingSince: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
  createdAt: string;
}

const toEndpoint = (r: Row.WebhookEndpoint): WebhookEndpoint => ({
  ...camelColumns(r, ['id', 'key_id', 'url', 'events', 'status']),
  description: r.description ?? null,
  failingSince: isoOrNull(r.failing_since),
  disabledAt: isoOrNull(r.disabled_at),
  disabledReason: r.disabled_reason ?? null,
  createdAt: iso(r.created_at),
});

/** The most endpoints one key may have. */
export const MAX_ENDPOINTS_PER_KEY = 10;

export async function createEndpoint(
  db: Knex,
  input: { keyId: string; url: string; events: string[]; description: string | null },
): Promise<{ endpoint: WebhookEndpoint; secret: string } | null> {
  return db.transaction(async (trx) => {
    // Serialises a key's registrations, so the limit holds under concurrent requests.
    await trx('feed_keys').where({ id: input.keyId }).forUpdate().first('id');
    const [{ n }] = await trx('webhook_endpoints').where({ key_id: input.keyId }).whereNot({ status: 'deleted' }).count({ n: '*' });
    if (Number(n) >= MAX_ENDPOINTS_PER_KEY) return null;
    const secret = newWebhookSecret();
    const [row] = await trx('webhook_endpoints')
      .insert({ id: randomUUID(), key_id: input.keyId, url: input.url, events: input.events, description: input.description, secret, status: 'active' })
      .returning('*');
    return { endpoint: toEndpoint(row), secret };
  });
}

/** A key's endpoints (or, keyId null, every key's: operators), newest first; deleted ones are gone. */
export async function listEndpoints(db: Knex, keyId: string | null): Promise<WebhookEndpoint[]> {
  const q = db('webhook_endpoints')
    .whereNot({ status: 'deleted' })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
  if (keyId) q.where({ key_id: keyId });
  return (await q).map(toEndpoint);
}

/** One endpoint of the key's (or any, keyId null); null when none. */
export async function getEndpoint(db: Knex, id: string, keyId: string | null): Promise<WebhookEndpoint | null> {
  const q = db('webhook_endpoints').where({ id }).whereNot({ status: 'deleted' });
  if (keyId) q.where({ key_id: keyId });
  const row = await q.first();
  return row ? toEndpoint(row) : null;
}

/** Changes url, events or description, or turns a disabled endpoint on again (its failure clock and pause reset). */
export async function updateEndpoint(
  db: Knex,
  id: string,
  keyId: string | null,
  change: { url?: string; events?: string[]; description?: string | null; enable?: boolean },
): Promise<WebhookEndpoint | null> {
  const q = db('webhook_endpoints').where({ id }).whereNot({ status: 'deleted' });
  if (keyId) q.where({ key_id: keyId });
  const [row] = await q
    .update({
      // A new address is tried at once: the pause the old one's failures earned is dropped.
      ...(change.url === undefined ? {} : { url: change.url, failures_in_row: 0, next_send_at: null }),
      ...(change.events === undefined ? {} : { events: change.events }),
      ...(change.description === undefined ? {} : { description: change.description }),
      ...(change.enable ? { status: 'active', failing_since: null, failures_in_row: 0, next_send_at: null, disabled_at: null, disabled_reason: null } : {}),
      updated_at: db.fn.now(),
    })
    .returning('*');
  return row ? toEndpoint(row) : null;
}

/** Deletes an endpoint: nothing more is sent to it (its deliveries are abandoned; their log stays). */
export async function deleteEndpoint(db: Knex, id: string, keyId: string | null): Promise<boolean> {
  return db.transaction(async (trx) => {
    const q = trx('webhook_endpoints').where({ id }).whereNot({ status: 'deleted' });
    if (keyId) q.where({ key_id: keyId });
    const n = await q.update({ status: 'deleted', updated_at: trx.fn.now() });
    if (n === 0) return false;
    await trx('webhook_deliveries').where({ endpoint_id: id, status: 'pending' }).update({ status: 'abandoned', last_error: 'the endpoint was deleted' });
    return true;
  });
}

export type RotateOutcome =
  | { status: 'rotated'; secret: string; previousSecretsValidUntil: string[] }
  | { status: 'too_many'; oldestUntil: string; retryAfterS: number }
  | null;

/**
 * A new secret, shown once. The current one joins the earlier secrets, each of which keeps signing
 * beside it until its own PREVIOUS_SECRET_HOURS have passed (a second rotation does not cut the
 * first one's grace short); those past their grace are dropped. Refused (too_many) while
 * MAX_PREVIOUS_SECRETS earlier secrets are still in their grace. Null: no such endpoint.
 */
export async function rotateSecret(db: Knex, id: string, keyId: string | null): Promise<RotateOutcome> {
  return db.transaction(async (trx) => {
    const q = trx('webhook_endpoints').where({ id }).whereNot({ status: 'deleted' }).forUpdate();
    if (keyId) q.where({ key_id: keyId });
    const row = await q.first('secret', 'previous_secrets', trx.raw('now() AS db_now'));
    if (!row) return null;
    const now = new Date(row.db_now);
    const kept = (row.previous_secrets as PreviousSecret[]).filter((p) => new Date(p.until) > now);
    if (kept.length >= MAX_PREVIOUS_SECRETS) {
      const oldest = Math.min(...kept.map((p) => new Date(p.until).getTime()));
      return { status: 'too_many', oldestUntil: new Date(oldest).toISOString(), retryAfterS: Math.max(1, Math.ceil((oldest - now.getTime()) / 1000)) };
    }
    const previous = [{ secret: row.secret as string, until: new Date(now.getTime() + PREVIOUS_SECRET_HOURS * 3600_000).toISOString() }, ...kept];
    const secret = newWebhookSecret();
    await trx('webhook_endpoints')
      .where({ id })
      .update({ secret, previous_secrets: JSON.stringify(previous), updated_at: trx.fn.now() });
    return { status: 'rotated', secret, previousSecretsValidUntil: previous.map((p) => p.until) };
  });
}

/** One event for one endpoint, as queued. */
export interface NewDelivery {
  endpointId: string;
  type: WebhookEventType;
  feedId: string | null;
  /** The event as sent: { type, timestamp, data }. */
  payload: string;
  /** The lead a lead.created event announces (its delivery state is shown with the lead). */
  leadId?: string;
}

/** Stores deliveries (in the given order: a feed's events keep it) and returns their ids. */
export async function insertDeliveries(db: Knex, deliveries: NewDelivery[]): Promise<string[]> {
  if (deliveries.length === 0) return [];
  const rows = deliveries.map((d) => ({
    id: `msg_${randomUUID().replaceAll('-', '')}`,
    endpoint_id: d.endpointId,
    event_type: d.type,
    feed_id: d.feedId,
    payload: d.payload,
    ...(d.leadId ? { lead_id: d.leadId } : {}),
    status: 'pending',
  }));
  // One statement per row, in order, so seq follows the events' order.
  for (const row of rows) await db('webhook_deliveries').insert(row);
  return rows.map((r) => r.id);
}

/** The active endpoints of a key subscribed to an event type. */
export async function subscribedEndpoints(db: Knex, keyId: string, type: WebhookEventType): Promise<string[]> {
  return db('webhook_endpoints').where({ key_id: keyId, status: 'active' }).whereRaw('? = ANY(events)', [type]).orderBy('created_at').pluck('id');
}

/** An active endpoint of a key, with the events it takes. */
export interface KeyEndpoint {
  id: string;
  events: WebhookEventType[];
}

/**
 * A subquery (JSON, in creation order) of the active endpoints of the key `keyId` names (an SQL
 * expression): what subscribedEndpoints answers for every event type at once, for a statement
 * that already has the key at hand (the one that finishes a feed).
 */
export const keyEndpointsSql = (keyId: string) =>
  `(SELECT coalesce(json_agg(json_build_object('id', w.id, 'events', w.events) ORDER BY w.created_at), '[]') FROM webhook_endpoints w WHERE w.key_id = ${keyId} AND w.status = 'active')`;

/** keyEndpointsSql's value as the driver gives it (parsed JSON, or its text). */
export const keyEndpointsOf = (value: unknown): KeyEndpoint[] => (typeof value === 'string' ? JSON.parse(value) : ((value ?? []) as KeyEndpoint[]));

/** An active endpoint of an active key, with the events it takes and the offices its key may push for. */
export interface OfficeEndpoint {
  id: string;
  events: WebhookEventType[];
  offices: string[];
}

/**
 * The active endpoints subscribed to lead.created of every active key whose offices include
 * `office` (a lead about one of the office's listings).
 */
export async function leadEndpoints(db: Knex, office: string): Promise<string[]> {
  return db('webhook_endpoints as e')
    .join('feed_keys as k', 'k.id', 'e.key_id')
    .where({ 'e.status': 'active', 'k.status': 'active' })
    .whereRaw('? = ANY(k.office_ids)', [office])
    .whereRaw("'lead.created' = ANY(e.events)")
    .orderBy('e.created_at')
    .pluck('e.id');
}

/** Every active endpoint of an active key (the change webhooks address them by office). */
export async function activeEndpointsWithOffices(db: Knex): Promise<OfficeEndpoint[]> {
  const rows = await db('webhook_endpoints as e')
    .join('feed_keys as k', 'k.id', 'e.key_id')
    .where({ 'e.status': 'active', 'k.status': 'active' })
    .orderBy('e.created_at')
    .select('e.id', 'e.events', 'k.office_ids');
  return rows.map((r: { id: string; events: WebhookEventType[]; office_ids: string[] }) => ({ id: r.id, events: r.events, offices: r.office_ids }));
}

export interface DeliveryLogEntry {
  id: string;
  endpointId: string;
  type: string;
  feedId: string | null;
  status: 'pending' | 'delivered' | 'abandoned';
  attempts: number;
  lastStatus: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

const toLogEntry = (r: Row.WebhookDelivery): DeliveryLogEntry => ({
  id: r.id,
  endpointId: r.endpoint_id,
  type: r.event_type,
  feedId: r.feed_id ?? null,
  status: r.status,
  attempts: r.attempts,
  lastStatus: r.last_status ?? null,
  lastLatencyMs: r.last_latency_ms ?? null,
  lastError: r.last_error ?? null,
  lastAttemptAt: isoOrNull(r.last_attempt_at),
  nextAttemptAt: r.status === 'pending' ? iso(r.next_attempt_at) : null,
  createdAt: iso(r.created_at),
  deliveredAt: isoOrNull(r.delivered_at),
});

/** An endpoint's deliveries, newest first, paged; filtered by status. */
export async function listDeliveries(
  db: Knex,
  endpointId: string,
  query: { status?: string; limit: number; offset: number },
): Promise<{ total: number; deliveries: DeliveryLogEntry[]; nextOffset: number | null }> {
  const base = () => {
    const q = db('webhook_deliveries').where({ endpoint_id: endpointId });
    if (query.status) q.where({ status: query.status });
    return q;
  };
  const { rows, total, nextOffset } = await offsetPage<Row.WebhookDelivery>(base, (q) => q.orderBy('seq', 'desc'), query);
  return { total, deliveries: rows.map(toLogEntry), nextOffset };
}
