import type { Knex } from 'knex';
import { type FeedEvent, type FeedEventInput, storeFeedEvent, toEvent } from './feed-events.js';
import { isUniqueViolation } from './pg-errors.js';

/** How long an Idempotency-Key stands for its first feed. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;

/**
 * What storing a push came to. new: stored and to be queued. idempotent: the same Idempotency-Key
 * and the same request within the window: the first feed answers. running: no key given, and the
 * same request from the same key is still queued or running: that feed answers. conflict: the
 * Idempotency-Key was used within the window for another request (event: that feed); nothing stored.
 */
export type StoredPush = { event: FeedEvent; repeat: null | 'idempotent' | 'running' | 'conflict' };

/**
 * Stores a push unless it repeats another (see StoredPush). The request is the same when its body
 * (as stored, by sha256), format, mode and context are. Decided inside the storing transaction,
 * after the body's hash is known; two identical pushes at once are serialised by the unique index
 * on (key, Idempotency-Key): the later one finds the first once it commits.
 */
export async function storePush(db: Knex, input: FeedEventInput, body: () => AsyncIterable<Buffer>, idempotencyKey: string | null): Promise<StoredPush> {
  for (let attempt = 0; ; attempt += 1) {
    let repeat: StoredPush['repeat'] = null;
    try {
      const event = await storeFeedEvent(db, input, body(), async (trx, stored) => {
        const found = idempotencyKey ? await priorWithKey(trx, stored, idempotencyKey) : await sameStillOpen(trx, stored);
        if (found) repeat = idempotencyKey ? (found.same ? 'idempotent' : 'conflict') : 'running';
        return found?.event ?? null;
      });
      return { event, repeat };
    } catch (err) {
      // Another push with the same key committed first: look again, it is visible now.
      if (!isUniqueViolation(err) || attempt > 0) throw err;
    }
  }
}

/** The same request as the stored one, as a condition on a feed_events row. */
function sameRequestSql(trx: Knex.Transaction, stored: FeedEvent): Knex.Raw {
  return trx.raw('(body_sha256 = ? AND format = ? AND mode = ? AND context = ?::jsonb)', [
    stored.bodySha256,
    stored.format,
    stored.mode,
    JSON.stringify(stored.context),
  ]);
}

/** The feed this key pushed under the Idempotency-Key within the window, or the key is taken for this one. */
async function priorWithKey(trx: Knex.Transaction, stored: FeedEvent, idempotencyKey: string) {
  // A key past the window, or whose feed was refused before it was read (its sender was told to
  // send again), is free to use again.
  await trx('feed_events')
    .where({ key_id: stored.keyId, idempotency_key: idempotencyKey })
    .where((q) => q.where('created_at', '<=', trx.raw(`now() - make_interval(hours => ?)`, [IDEMPOTENCY_WINDOW_HOURS])).orWhere('status', 'rejected'))
    .update({ idempotency_key: null });
  const prior = await trx('feed_events')
    .where({ key_id: stored.keyId, idempotency_key: idempotencyKey })
    .first('*', sameRequestSql(trx, stored).wrap('', ' AS same'));
  if (prior) return { event: toEvent(prior), same: Boolean(prior.same) };
  await trx('feed_events').where({ id: stored.id }).update({ idempotency_key: idempotencyKey });
  return null;
}

/** The oldest feed of this key with the same request still queued or running. */
async function sameStillOpen(trx: Knex.Transaction, stored: FeedEvent) {
  const open = await trx('feed_events')
    .where({ key_id: stored.keyId, body_sha256: stored.bodySha256 })
    .whereIn('status', ['queued', 'running'])
    .whereNot({ id: stored.id })
    .where(sameRequestSql(trx, stored))
    .orderBy('created_at')
    .first();
  return open ? { event: toEvent(open), same: true } : null;
}
