import type { Knex } from 'knex';
import type { PreviousSecret } from './webhooks.js';

/**
 * Webhook delivery in lanes (docs/ingestion-internals.md, Webhook deliveries): each endpoint is
 * one lane, sent to by one worker at a time (`sending_until`, a lease), and a key has at most
 * LANES_PER_KEY lanes sending at once. A lane's deliveries go in order of creation, a feed's
 * events each only after the one before it; after a failed attempt the lane pauses (`next_send_at`),
 * longer for each failure in a row, so a dead endpoint costs one attempt per pause.
 */

/** How many of one key's endpoints are sent to at once, across every worker. */
export const LANES_PER_KEY = 2;
/** The pause after a lane's first failed attempt in a row; doubled by each further one, up to LANE_PAUSE_MAX_S. */
export const LANE_PAUSE_S = 5;
export const LANE_PAUSE_MAX_S = 60;

/** An endpoint as a lane sends to it. */
export interface LaneEndpoint {
  id: string;
  key_id: string;
  url: string;
  secret: string;
  previous_secrets: PreviousSecret[];
}

/** A delivery claimed for one attempt. */
export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  feed_id: string | null;
  payload: string;
  attempts: number;
}

export type LaneClaim =
  | { claimed: LaneEndpoint }
  /** Not active (disabled or deleted) or gone: nothing is sent to it. */
  | { refused: 'inactive' }
  /** Another worker is sending to it, or it pauses after failures: its turn comes back by itself. */
  | { refused: 'busy' | 'pausing' }
  /** LANES_PER_KEY of its key's endpoints are being sent to: try again shortly. */
  | { refused: 'key_busy' };

/**
 * Takes an endpoint's lane for leaseS seconds. The key's lanes are counted under a lock of the
 * key's own (a transaction-scoped advisory lock), so LANES_PER_KEY holds with any number of workers.
 */
export async function claimLane(db: Knex, endpointId: string, leaseS: number): Promise<LaneClaim> {
  return db.transaction(async (trx) => {
    const row = await trx('webhook_endpoints').where({ id: endpointId }).first('key_id', 'status', 'sending_until', 'next_send_at', trx.raw('now() AS db_now'));
    if (row?.status !== 'active') return { refused: 'inactive' };
    await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`webhook-lanes:${row.key_id}`]);
    const [claimed] = await trx('webhook_endpoints')
      .where({ id: endpointId, status: 'active' })
      .where((q) => q.whereNull('sending_until').orWhere('sending_until', '<', trx.raw('now()')))
      .where((q) => q.whereNull('next_send_at').orWhere('next_send_at', '<=', trx.raw('now()')))
      .whereRaw('(SELECT count(*) FROM webhook_endpoints o WHERE o.key_id = ? AND o.id <> ? AND o.sending_until >= now()) < ?', [
        row.key_id,
        endpointId,
        LANES_PER_KEY,
      ])
      .update({ sending_until: trx.raw('now() + make_interval(secs => ?)', [leaseS]) })
      .returning(['id', 'key_id', 'url', 'secret', 'previous_secrets']);
    if (claimed) return { claimed };
    const now = new Date(row.db_now);
    if (row.sending_until && new Date(row.sending_until) >= now) return { refused: 'busy' };
    if (row.next_send_at && new Date(row.next_send_at) > now) return { refused: 'pausing' };
    return { refused: 'key_busy' };
  });
}

/** Keeps the lane for another leaseS seconds (before each attempt). */
export async function renewLane(db: Knex, endpointId: string, leaseS: number): Promise<void> {
  await db('webhook_endpoints')
    .where({ id: endpointId })
    .update({ sending_until: db.raw('now() + make_interval(secs => ?)', [leaseS]) });
}

export async function releaseLane(db: Knex, endpointId: string): Promise<void> {
  await db('webhook_endpoints').where({ id: endpointId }).update({ sending_until: null });
}

/**
 * The lane's next delivery, claimed for leaseS seconds: its first pending one in order of
 * creation that is due, not claimed by an attempt still running, and not behind an earlier
 * pending event of the same feed. Null when there is none.
 */
export async function claimNextDelivery(db: Knex, endpointId: string, leaseS: number): Promise<ClaimedDelivery | null> {
  const { rows } = await db.raw(
    `UPDATE webhook_deliveries SET locked_until = now() + make_interval(secs => ?)
      WHERE id = (
        SELECT d.id FROM webhook_deliveries d
         WHERE d.endpoint_id = ? AND d.status = 'pending' AND d.next_attempt_at <= now()
           AND (d.locked_until IS NULL OR d.locked_until < now())
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                            WHERE e.endpoint_id = d.endpoint_id AND e.feed_id = d.feed_id AND e.status = 'pending' AND e.seq < d.seq)
         ORDER BY d.seq
         LIMIT 1
         FOR UPDATE SKIP LOCKED)
        AND status = 'pending' AND (locked_until IS NULL OR locked_until < now())
      RETURNING id, endpoint_id, feed_id, payload, attempts`,
    [leaseS, endpointId],
  );
  return rows[0] ?? null;
}

/** Whether the lane has a delivery it could send now (the same rule as claimNextDelivery). */
export async function laneHasDue(db: Knex, endpointId: string): Promise<boolean> {
  const { rows } = await db.raw(
    `SELECT 1 FROM webhook_deliveries d
      WHERE d.endpoint_id = ? AND d.status = 'pending' AND d.next_attempt_at <= now()
        AND (d.locked_until IS NULL OR d.locked_until < now())
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                         WHERE e.endpoint_id = d.endpoint_id AND e.feed_id = d.feed_id AND e.status = 'pending' AND e.seq < d.seq)
      LIMIT 1`,
    [endpointId],
  );
  return rows.length > 0;
}

/**
 * Records an acknowledged attempt: the delivery is done, and the lane's failure count and pause are
 * cleared, in one transaction (no one sees the one without the other).
 */
export async function recordDelivered(db: Knex, delivery: ClaimedDelivery, log: AttemptLog): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('webhook_deliveries')
      .where({ id: delivery.id })
      .update({ ...logColumns(delivery, log), status: 'delivered', delivered_at: trx.fn.now(), last_error: null });
    await trx('webhook_endpoints')
      .where({ id: delivery.endpoint_id })
      .where((q) => q.whereNotNull('failing_since').orWhere('failures_in_row', '>', 0).orWhereNotNull('next_send_at'))
      .update({ failing_since: null, failures_in_row: 0, next_send_at: null });
  });
}

/**
 * Records a failed attempt: the delivery's next attempt after retryInS (null: it is abandoned),
 * and the lane pauses, LANE_PAUSE_S doubled for each failure in a row before this one, at most
 * LANE_PAUSE_MAX_S. The endpoint's failure clock (failing_since) starts if it was not running.
 */
export async function recordFailed(db: Knex, delivery: ClaimedDelivery, log: AttemptLog & { error: string }, retryInS: number | null): Promise<void> {
  // One transaction: an attempt recorded without the lane's pause (seen between the two, or left by
  // a crash) would let the lane send again at once.
  await db.transaction(async (trx) => {
    await trx('webhook_deliveries')
      .where({ id: delivery.id })
      .update({
        ...logColumns(delivery, log),
        last_error: log.error,
        ...(retryInS === null ? { status: 'abandoned' } : { next_attempt_at: trx.raw('now() + make_interval(secs => ?)', [retryInS]) }),
      });
    await trx('webhook_endpoints')
      .where({ id: delivery.endpoint_id })
      .update({
        failures_in_row: trx.raw('failures_in_row + 1'),
        next_send_at: trx.raw('now() + make_interval(secs => least(?, ? * power(2, least(failures_in_row, 20))))', [LANE_PAUSE_MAX_S, LANE_PAUSE_S]),
        failing_since: trx.raw('coalesce(failing_since, now())'),
      });
  });
}

/** What one attempt left in the delivery log. */
export interface AttemptLog {
  status: number | null;
  ms: number;
  at: Date;
}

const logColumns = (delivery: ClaimedDelivery, log: AttemptLog) => ({
  attempts: delivery.attempts + 1,
  last_status: log.status,
  last_latency_ms: log.ms,
  last_attempt_at: log.at,
  locked_until: null,
});

/** Abandons an endpoint's pending deliveries (it is disabled or deleted: nothing more is sent to it). */
export async function abandonPending(db: Knex, endpointId: string, reason: string): Promise<number> {
  return db('webhook_deliveries').where({ endpoint_id: endpointId, status: 'pending' }).update({ status: 'abandoned', last_error: reason, locked_until: null });
}

/**
 * Endpoints with a delivery due whose lane is free and not pausing (the sweep queues them), those
 * waiting longest first; and active endpoints nothing can be sent to are left out.
 */
export async function dueEndpointIds(db: Knex, limit = 500): Promise<string[]> {
  const { rows } = await db.raw(
    `SELECT e.id FROM webhook_endpoints e
       JOIN LATERAL (SELECT min(d.next_attempt_at) AS due FROM webhook_deliveries d
                      WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= now()
                        AND (d.locked_until IS NULL OR d.locked_until < now())) first ON first.due IS NOT NULL
      WHERE e.status = 'active'
        AND (e.sending_until IS NULL OR e.sending_until < now())
        AND (e.next_send_at IS NULL OR e.next_send_at <= now())
      ORDER BY first.due
      LIMIT ?`,
    [limit],
  );
  return rows.map((r: { id: string }) => r.id);
}

/** The endpoint a delivery is for (a job queued by delivery id before lanes: it runs its endpoint's lane). */
export async function endpointOfDelivery(db: Knex, deliveryId: string): Promise<string | null> {
  return (await db('webhook_deliveries').where({ id: deliveryId }).first('endpoint_id'))?.endpoint_id ?? null;
}
