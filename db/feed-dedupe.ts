import type { Knex } from 'knex';
import { type RepeatCheck, storeFeedEvent } from './feed-bodies.js';
import { type FeedEvent, type FeedEventInput, type FeedRequest, toEvent } from './feed-events.js';
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
 * (as stored, by sha256), format, mode and context are. Decided once the body's hash is known:
 * without an Idempotency-Key, for a body of one chunk, by the very statement that would store it;
 * under a key, before the event is written; for a body of several chunks, inside the transaction
 * writing it. Two identical pushes at once under one Idempotency-Key are serialised by the unique index
 * on (key, Idempotency-Key): the later one fails on it, looks again and finds the first. Without a
 * key, the look (open_push_after_lock) first takes an advisory lock on the key and the body's hash,
 * held until the push's statement or transaction commits: the later push waits, then finds the
 * first one's feed.
 */
export async function storePush(db: Knex, input: FeedEventInput, body: () => AsyncIterable<Buffer>, idempotencyKey: string | null): Promise<StoredPush> {
  for (let attempt = 0; ; attempt += 1) {
    let repeat: StoredPush['repeat'] = null;
    try {
      const check: RepeatCheck = idempotencyKey
        ? {
            async find(conn, request) {
              const found = await priorWithKey(conn, request, idempotencyKey);
              if (found) repeat = found.same ? 'idempotent' : 'conflict';
              return found?.event ?? null;
            },
          }
        : {
            async find(conn, request) {
              const { rows } = await openPushSql(conn, request);
              if (rows.length) repeat = 'running';
              return rows.length ? toEvent(rows[0]) : null;
            },
            // A body of one chunk (most pushes) is looked for and stored in one statement.
            query: openPushSql,
            found() {
              repeat = 'running';
            },
          };
      const event = await storeFeedEvent(db, { ...input, idempotencyKey }, body(), check);
      return { event, repeat };
    } catch (err) {
      // Another push with the same key was stored first: look again, it is visible now.
      if (!isUniqueViolation(err) || attempt > 0) throw err;
    }
  }
}

/** The same request as the stored one, as a condition on a feed_events row (open_push_after_lock compares the same). */
function sameRequestSql(db: Knex, request: FeedRequest): Knex.Raw {
  return db.raw('(body_sha256 = ? AND format = ? AND mode = ? AND context = ?::jsonb)', [
    request.bodySha256,
    request.format,
    request.mode,
    JSON.stringify(request.context),
  ]);
}

/** Another feed this key pushed under the Idempotency-Key within the window, if any. */
async function priorWithKey(db: Knex, request: FeedRequest, idempotencyKey: string) {
  // A key past the window, or whose feed was refused before it was read (its sender was told to
  // send again), is free to use again.
  await db('feed_events')
    .where({ key_id: request.keyId, idempotency_key: idempotencyKey })
    .where((q) => q.where('created_at', '<=', db.raw(`now() - make_interval(hours => ?)`, [IDEMPOTENCY_WINDOW_HOURS])).orWhere('status', 'rejected'))
    .update({ idempotency_key: null });
  const prior = await db('feed_events')
    .where({ key_id: request.keyId, idempotency_key: idempotencyKey })
    .whereNot({ id: request.id })
    .first('*', sameRequestSql(db, request).wrap('', ' AS same'));
  return prior ? { event: toEvent(prior), same: Boolean(prior.same) } : null;
}

/**
 * The oldest other feed of this key with the same request still queued or running (at most one
 * row), looked for once identical pushes before this one have committed: the function takes a
 * transaction-scoped lock on the key and the body's hash first (db/migrations, open_push_lock).
 */
function openPushSql(db: Knex, request: FeedRequest): Knex.Raw {
  return db.raw('SELECT * FROM open_push_after_lock(?::uuid, ?, ?, ?, ?::jsonb, ?::uuid)', [
    request.keyId,
    request.bodySha256,
    request.format,
    request.mode,
    JSON.stringify(request.context),
    request.id,
  ]);
}
