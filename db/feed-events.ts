import type { Knex } from 'knex';
import type { FeedOutcome } from '../lib/feed-outcome.js';
import { jsonPieces } from '../lib/json-pieces.js';
import type { FeedFormat } from '../pipeline/types.js';
import { copyIn, fieldPieces } from './copy-from-stdin.js';
import { markDirectoryStale } from './directory.js';
import { announceHere, updateAnnouncingEnd } from './feed-done.js';
import type { Db } from './knex.js';
import { iso, isoOrNull } from './row-values.js';
import type * as Row from './rows.js';
import type { FeedProgress, FeedStatus } from './rows.js';
import { type KeyEndpoint, keyEndpointsOf, keyEndpointsSql } from './webhooks.js';

export type { FeedProgress, FeedStatus };

/**
 * A feed event's life cycle: read, claimed by its job (with a small body), its progress, finished
 * with its result or failed (announced to waiting requests: db/feed-done.ts), reopened by an
 * operator, found lost by the sweep. Storing it with its body, and reading or purging the body,
 * is the body store (db/feed-bodies.ts).
 */

export interface FeedEventInput {
  source: 'api' | 'sftp';
  keyId: string | null;
  officeScope: string[];
  alertEmail: string | null;
  format: FeedFormat;
  mode: 'full' | 'incremental';
  context: Record<string, unknown>;
  /** text: a string carried in JSON (UTF-8, whatever its declaration says); bytes: the raw body. */
  bodyKind: 'text' | 'bytes';
  /** The push's Idempotency-Key, held by the event while the key stands (db/feed-dedupe.ts). */
  idempotencyKey?: string | null;
}

/** A feed about to be stored, as a repeat check sees it: its request, and the id it will have. */
export interface FeedRequest extends FeedEventInput {
  id: string;
  bodySha256: string;
}

export interface FeedEvent extends FeedEventInput {
  id: string;
  status: FeedStatus;
  /** What became of it, in one word (lib/feed-outcome.ts): worked out by the database from status and result. */
  outcome: FeedOutcome;
  attempts: number;
  bodyBytes: number;
  bodySha256: string;
  result: Record<string, unknown> | null;
  /** Why it failed, in a plain sentence for the integrator. */
  error: string | null;
  /** The internal cause (database or stack text): operators only, never shown to integrators. */
  errorDetail: string | null;
  /** While running: the counts so far. */
  progress: FeedProgress | null;
  /** When the raw body was deleted after the retention (null while it is kept). */
  bodyPurgedAt: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export const toEvent = (row: Row.FeedEvent): FeedEvent => ({
  id: row.id,
  source: row.source,
  keyId: row.key_id,
  officeScope: row.office_scope,
  alertEmail: row.alert_email,
  format: row.format,
  mode: row.mode,
  context: row.context,
  bodyKind: row.body_kind,
  status: row.status,
  outcome: row.outcome,
  attempts: row.attempts,
  bodyBytes: Number(row.body_bytes),
  bodySha256: row.body_sha256,
  result: row.result ?? null,
  error: row.error ?? null,
  errorDetail: row.error_detail ?? null,
  progress: row.progress ?? null,
  bodyPurgedAt: isoOrNull(row.body_purged_at),
  createdAt: iso(row.created_at),
  finishedAt: isoOrNull(row.finished_at),
});

export async function getFeedEvent(db: Db, id: string): Promise<FeedEvent | null> {
  const row = await db('feed_events').where({ id }).first();
  return row ? toEvent(row) : null;
}

/** A body up to this size comes with its claim (startFeedEvent): its one chunk needs no read of its own. */
const CLAIMED_BODY_BYTES = 64 * 1024;

/** A claimed event, and its whole body when it is small (else null: read it with readFeedBody). */
export interface ClaimedFeed {
  event: FeedEvent;
  body: Buffer | null;
}

/**
 * Claims an event for processing: queued, running after a crash, or failed (a job runs for a
 * failed feed only when an operator retried it, from the board or the admin API). null when it is
 * done, rejected (its sender was told nothing was accepted) or unknown. A body of up to 64 KB
 * (most pushes) is returned with it, read in the same statement.
 */
export async function startFeedEvent(db: Db, id: string): Promise<ClaimedFeed | null> {
  const [row] = await db('feed_events')
    .where({ id })
    .whereIn('status', ['queued', 'running', 'failed'])
    .update({
      status: 'running',
      attempts: db.raw('attempts + 1'),
      error: null,
      error_detail: null,
      finished_at: null,
      started_at: db.fn.now(),
      updated_at: db.fn.now(),
    })
    .returning([
      '*',
      db.raw(
        `CASE WHEN body_bytes <= ? AND body_purged_at IS NULL THEN (SELECT data FROM feed_event_chunks c WHERE c.feed_id = feed_events.id AND c.seq = 0) END AS claimed_body`,
        [CLAIMED_BODY_BYTES],
      ),
    ]);
  if (!row) return null;
  const event = toEvent(row);
  const data = row.claimed_body as Uint8Array | null;
  // A body of one chunk is whole when its size is the event's.
  const body = data && data.byteLength === event.bodyBytes ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : null;
  return { event, body };
}

/**
 * A finished feed: what became of it, and its key's active webhook endpoints (read by the
 * statement that finishes it, so the feed's own event is addressed without another round trip).
 */
export interface FinishedFeed {
  outcome: FeedOutcome;
  keyEndpoints: KeyEndpoint[];
}

/** A result this long or longer (in characters of JSON) is stored through COPY on PostgreSQL (copyIn); a push's is a few hundred. */
const COPIED_RESULT_CHARS = 1 << 20;

/**
 * Stores a feed's result; returns what became of it (the outcome the database works out from the
 * result). The announcement carries the result (when short), so a waiting request need not read
 * it back; on PostgreSQL it goes out in the same statement, as it commits. The offices whose
 * listings the feed changed are marked stale in the directory by the same statement (their
 * refresh follows: db/directory.ts). On PostgreSQL a result of a megabyte or more (a large feed's
 * upserts and issues; 14 MB for 50,000 listings with a warning each) is sent by COPY as its JSON
 * is made, instead of as the statement's parameter, whose buffers would have taken twice and a
 * half its size.
 */
export async function finishFeedEvent(db: Db, id: string, result: Record<string, unknown>, changedOffices: readonly string[] = []): Promise<FinishedFeed> {
  const finish = async (on: Knex, resultValue: string | Knex.Raw): Promise<FinishedFeed> => {
    const update = on('feed_events')
      .where({ id })
      .update({
        status: 'done',
        result: resultValue,
        error: null,
        error_detail: null,
        progress: null,
        updated_at: on.fn.now(),
        finished_at: on.fn.now(),
      })
      .returning(['id', 'outcome', 'status', 'result', 'error', on.raw(`${keyEndpointsSql('feed_events.key_id')} AS key_endpoints`)]);
    const alongside: Record<string, Knex.Raw> = changedOffices.length ? { stale: markDirectoryStale(on, changedOffices) } : {};
    const [row] = await updateAnnouncingEnd<'outcome', 'key_endpoints'>(db, update, ['outcome', 'key_endpoints'], alongside, on);
    return { outcome: row.outcome, keyEndpoints: keyEndpointsOf(row.key_endpoints) };
  };
  let finished: FinishedFeed;
  if (db.embedded) {
    finished = await finish(db, JSON.stringify(result));
  } else {
    // The result's JSON is made a member at a time; its first megabyte decides how it is sent.
    const parts = jsonPieces(result);
    let head = '';
    let part = parts.next();
    for (; !part.done && head.length < COPIED_RESULT_CHARS; part = parts.next()) head += part.value;
    if (part.done) {
      finished = await finish(db, head);
    } else {
      // A large result (a big feed's upserts and issues) goes in by COPY, to a table of this
      // transaction's own, as it is made; the finishing statement takes it from there.
      const rest = part.value;
      const text = (function* () {
        yield head;
        yield rest;
        yield* parts;
      })();
      finished = await db.transaction(async (trx) => {
        await trx.raw('CREATE TEMP TABLE feed_result_in (result text) ON COMMIT DROP');
        await copyIn(trx, 'COPY feed_result_in (result) FROM STDIN', fieldPieces(text));
        return finish(trx, trx.raw('(SELECT result::jsonb FROM feed_result_in)'));
      });
    }
  }
  announceHere(id, { status: 'done', result, error: null });
  return finished;
}

/** The counts so far of a running feed (also keeps it from looking lost to the sweep). */
export async function recordFeedProgress(db: Db, id: string, progress: FeedProgress): Promise<void> {
  await db('feed_events')
    .where({ id, status: 'running' })
    .update({ progress: JSON.stringify(progress), updated_at: db.fn.now() });
}

/**
 * failed: processing gave up; rejected: the feed was never queued (the client was told 503).
 * error is the plain sentence integrators see; detail the internal cause, for operators only.
 * Returns whether the event was still open (false: it had finished, or is unknown). Announced as
 * finishFeedEvent announces (a failure carries its error; a rejection is announced by its id).
 */
export async function failFeedEvent(db: Db, id: string, status: 'failed' | 'rejected', error: string, detail: string | null = null): Promise<boolean> {
  const update = db('feed_events')
    .where({ id })
    .whereIn('status', ['queued', 'running'])
    .update({ status, error, error_detail: detail, updated_at: db.fn.now(), finished_at: db.fn.now() })
    .returning(['id', 'status', 'result', 'error']);
  const rows = await updateAnnouncingEnd(db, update, ['id']);
  if (rows.length === 0) return false;
  announceHere(id, status === 'failed' ? { status, result: null, error } : undefined);
  return true;
}

/**
 * Puts a failed feed back in the queue's hands (an operator's retry): its body is still stored,
 * so it runs again from the start and converges. False when it is not failed.
 */
export async function reopenFailedFeedEvent(db: Db, id: string): Promise<boolean> {
  const n = await db('feed_events')
    .where({ id, status: 'failed' })
    .whereNull('body_purged_at')
    .update({ status: 'queued', error: null, error_detail: null, progress: null, finished_at: null, updated_at: db.fn.now() });
  return n > 0;
}

/** Events queued or running but untouched for a while: their job was lost (crash between commit and enqueue). */
export async function staleFeedEventIds(db: Db, olderThanMs: number): Promise<string[]> {
  return db('feed_events')
    .whereIn('status', ['queued', 'running'])
    .where('updated_at', '<', db.raw(`now() - make_interval(secs => ?)`, [olderThanMs / 1000]))
    .orderBy('created_at')
    .limit(100)
    .pluck('id');
}
