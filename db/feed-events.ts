import { createHash, randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import type { PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import copyBinary from 'pg-copy-streams-binary';
import type { FeedOutcome } from '../lib/feed-outcome.js';
import { jsonPieces } from '../lib/json-pieces.js';
import { scrubCredentials } from '../pipeline/reaxml/scrub-credentials.js';
import type { FeedFormat } from '../pipeline/types.js';
import { copyIn, fieldPieces } from './copy-from-stdin.js';
import { markDirectoryStale } from './directory.js';
import { announceHere, updateAnnouncingEnd } from './feed-done.js';
import type { Db } from './knex.js';
import { iso, isoOrNull } from './row-values.js';
import type * as Row from './rows.js';
import type { FeedProgress, FeedStatus } from './rows.js';

export type { FeedProgress, FeedStatus };

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

/** The raw feed is kept in chunks of this size, so neither side ever holds it whole. */
const CHUNK_BYTES = 1024 * 1024;

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

/** A push under a key that is no longer active (revoked or suspended while its body arrived): nothing was stored. */
export class FeedKeyNotActiveError extends Error {
  constructor() {
    super('the feed key is no longer active');
  }
}

/** Up to CHUNK_BYTES of the body (the hash fed as it is read); last when the body has ended. */
async function nextChunk(body: AsyncIterator<Buffer>, hash: ReturnType<typeof createHash>): Promise<{ data: Buffer; last: boolean }> {
  const pieces: Buffer[] = [];
  let bytes = 0;
  while (bytes < CHUNK_BYTES) {
    const next = await body.next();
    if (next.done) return { data: Buffer.concat(pieces, bytes), last: true };
    hash.update(next.value);
    pieces.push(next.value);
    bytes += next.value.length;
  }
  return { data: Buffer.concat(pieces, bytes), last: false };
}

/**
 * Inserts the event row (and its first chunk, when it has one) in one statement. Under a key, the
 * row is written only while the key is active: a key revoked or suspended while its body was
 * arriving lands nothing (FeedKeyNotActiveError), decided in the same statement as the write.
 * Given `instead`, a query of at most one feed_events row, that row is returned in place of
 * writing anything (repeated: true), decided in the same statement too.
 */
async function insertEvent(
  db: Knex,
  request: FeedRequest,
  bytes: number,
  chunk: Buffer,
  instead?: Knex.Raw,
): Promise<{ row: Row.FeedEvent; repeated: boolean }> {
  const withChunk = chunk.length > 0;
  const { rows } = await db.raw(
    `WITH ${instead ? 'open AS MATERIALIZED (?), ' : ''}e AS (
       INSERT INTO feed_events (id, source, key_id, office_scope, alert_email, format, mode, context, body_kind, body_bytes, body_sha256, idempotency_key, status)
       SELECT ?, ?, ?::uuid, ?::text[], ?, ?, ?, ?::jsonb, ?, ?, ?, ?, 'queued'
       WHERE (?::uuid IS NULL OR EXISTS (SELECT 1 FROM feed_keys WHERE id = ?::uuid AND status = 'active'))${instead ? ' AND NOT EXISTS (SELECT 1 FROM open)' : ''}
       RETURNING *
     )${withChunk ? ', c AS (INSERT INTO feed_event_chunks (feed_id, seq, data) SELECT id, 0, ? FROM e)' : ''}
     SELECT *, false AS repeated FROM e${instead ? ' UNION ALL SELECT *, true AS repeated FROM open' : ''}`,
    [
      ...(instead ? [instead] : []),
      request.id,
      request.source,
      request.keyId,
      request.officeScope,
      request.alertEmail,
      request.format,
      request.mode,
      JSON.stringify(request.context),
      request.bodyKind,
      bytes,
      request.bodySha256,
      request.idempotencyKey ?? null,
      request.keyId,
      request.keyId,
      ...(withChunk ? [chunk] : []),
    ],
  );
  if (rows.length === 0) throw new FeedKeyNotActiveError();
  return { row: rows[0], repeated: rows[0].repeated === true };
}

/**
 * Another stored event that answers a request instead of storing it (db/feed-dedupe.ts). find()
 * may be asked before the event is written or inside the transaction writing it: it must not count
 * the request's own id as another. Where the answer is a query of at most one feed_events row,
 * query() gives it, and a body of one chunk is then checked and stored in one statement; found()
 * is told of the event that answered there.
 */
export interface RepeatCheck {
  find(db: Knex, request: FeedRequest): Promise<FeedEvent | null>;
  query?(db: Knex, request: FeedRequest): Knex.Raw;
  found?(event: FeedEvent): void;
}

/**
 * Stores a feed event and its body, in chunks of up to 1 MB: either the whole feed is stored
 * (status queued) or nothing is (an error while reading the body stores nothing). A body of one
 * chunk, most pushes, is stored with its event in one statement; a longer one is streamed in a
 * transaction, chunk by chunk, and its size, hash and Idempotency-Key written last. A REAXML body's
 * root credentials are masked first; size and sha256 are of what is stored. Should `repeatOf`
 * name another event once the body's hash is known (before the one statement, or before the
 * transaction commits), nothing is stored and that one is returned. Under a key that is not
 * active, nothing is stored and FeedKeyNotActiveError is thrown.
 */
export async function storeFeedEvent(db: Knex, input: FeedEventInput, sent: AsyncIterable<Buffer>, repeatOf?: RepeatCheck): Promise<FeedEvent> {
  const id = randomUUID();
  const body = (input.format === 'reaxml' ? scrubCredentials(sent) : sent)[Symbol.asyncIterator]();
  const hash = createHash('sha256');
  try {
    const first = await nextChunk(body, hash);
    if (first.last) {
      const request: FeedRequest = { ...input, id, bodySha256: hash.digest('hex') };
      if (repeatOf?.query) {
        const { row, repeated } = await insertEvent(db, request, first.data.length, first.data, repeatOf.query(db, request));
        const event = toEvent(row);
        if (repeated) repeatOf.found?.(event);
        return event;
      }
      return (await repeatOf?.find(db, request)) ?? toEvent((await insertEvent(db, request, first.data.length, first.data)).row);
    }
    let instead: FeedEvent | null = null;
    const stored = await db
      .transaction(async (trx) => {
        await insertEvent(trx, { ...input, idempotencyKey: null, id, bodySha256: '' }, 0, first.data);
        let total = first.data.length;
        for (let seq = 1; ; seq += 1) {
          const chunk = await nextChunk(body, hash);
          // Chunks are never empty: readChunk takes no bytes for the end of the body.
          if (chunk.data.length > 0) await trx('feed_event_chunks').insert({ feed_id: id, seq, data: chunk.data });
          total += chunk.data.length;
          if (chunk.last) break;
        }
        const request: FeedRequest = { ...input, id, bodySha256: hash.digest('hex') };
        instead = (await repeatOf?.find(trx, request)) ?? null;
        if (instead) throw ROLL_BACK;
        const [row] = await trx('feed_events')
          .where({ id })
          .update({ body_bytes: total, body_sha256: request.bodySha256, idempotency_key: input.idempotencyKey ?? null })
          .returning('*');
        return toEvent(row);
      })
      .catch((err) => {
        if (err !== ROLL_BACK) throw err;
        return null;
      });
    return stored ?? instead!;
  } finally {
    await body.return?.();
  }
}

/** Thrown inside storeFeedEvent's transaction to undo it when another event answers instead. */
const ROLL_BACK = new Error('another feed event answers this one');

/**
 * One stored chunk, or null past the last. PGlite hands over its bytes as they are. On PostgreSQL
 * the chunk comes through COPY ... TO STDOUT (FORMAT binary), as raw bytes: a query would have
 * them base64-encoded (or hex, as bytea text), and pg's per-query binary mode decodes bytea
 * lossily as UTF-8 (test/db/database.test.ts holds every byte value). One short statement per
 * chunk: a feed read slowly never holds a connection or outlives the statement timeout.
 */
async function readChunk(db: Db, id: string, seq: number): Promise<Buffer | null> {
  if (db.embedded) {
    const row = await db('feed_event_chunks').where({ feed_id: id, seq }).first('data');
    if (!row) return null;
    const data = row.data as Uint8Array;
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  }
  const conn = (await db.client.acquireConnection()) as PoolClient;
  try {
    const parts: Buffer[] = [];
    const sql = `COPY (SELECT data FROM feed_event_chunks WHERE feed_id = ${conn.escapeLiteral(id)} AND seq = ${Number(seq)}) TO STDOUT (FORMAT binary)`;
    const copy = copyTo(sql);
    // pg arms a timer of query_timeout for every query and clears it when the query's callback is
    // called; a COPY TO stream never calls one, so each chunk read stayed referenced by its timer
    // (the whole megabyte, until the timer ran out 31 s later): a 110 MB feed held its whole
    // body. A callback that is called once the copy is over (pg wraps it) clears the timer.
    const over = Object.assign(copy, { callback: () => undefined });
    try {
      await pipeline(conn.query(copy), copyBinary.rawReader(), async (bytes: AsyncIterable<Buffer>) => {
        for await (const part of bytes) parts.push(part);
      });
    } finally {
      over.callback();
    }
    // Chunks are never empty (storeFeedEvent writes none), so no bytes means no such chunk.
    return parts.length === 0 ? null : Buffer.concat(parts);
  } finally {
    await db.client.releaseConnection(conn);
  }
}

/**
 * The stored body, chunk by chunk; the next chunk is fetched while this one is used. Given the
 * body's size (the event's bodyBytes), it stops once that much is read, without asking for a
 * chunk past the last.
 */
export async function* readFeedBody(db: Db, id: string, size?: number): AsyncGenerator<Buffer> {
  let read = 0;
  let next: Promise<Buffer | null> | null = size === 0 ? null : readChunk(db, id, 0);
  for (let seq = 0; next; seq += 1) {
    const data = await next;
    if (!data) return;
    read += data.length;
    next = size !== undefined && read >= size ? null : readChunk(db, id, seq + 1);
    next?.catch(() => undefined); // awaited on the next turn; should the reader stop early, ignored
    yield data;
  }
}

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
export async function finishFeedEvent(db: Db, id: string, result: Record<string, unknown>, changedOffices: readonly string[] = []): Promise<FeedOutcome> {
  const finish = async (on: Knex, resultValue: string | Knex.Raw): Promise<FeedOutcome> => {
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
      .returning(['id', 'outcome', 'status', 'result', 'error']);
    const alongside: Record<string, Knex.Raw> = changedOffices.length ? { stale: markDirectoryStale(on, changedOffices) } : {};
    const [row] = await updateAnnouncingEnd(db, update, ['outcome'], alongside, on);
    return row.outcome;
  };
  let outcome: FeedOutcome;
  if (db.embedded) {
    outcome = await finish(db, JSON.stringify(result));
  } else {
    // The result's JSON is made a member at a time; its first megabyte decides how it is sent.
    const parts = jsonPieces(result);
    let head = '';
    let part = parts.next();
    for (; !part.done && head.length < COPIED_RESULT_CHARS; part = parts.next()) head += part.value;
    if (part.done) {
      outcome = await finish(db, head);
    } else {
      // A large result (a big feed's upserts and issues) goes in by COPY, to a table of this
      // transaction's own, as it is made; the finishing statement takes it from there.
      const rest = part.value;
      const text = (function* () {
        yield head;
        yield rest;
        yield* parts;
      })();
      outcome = await db.transaction(async (trx) => {
        await trx.raw('CREATE TEMP TABLE feed_result_in (result text) ON COMMIT DROP');
        await copyIn(trx, 'COPY feed_result_in (result) FROM STDIN', fieldPieces(text));
        return finish(trx, trx.raw('(SELECT result::jsonb FROM feed_result_in)'));
      });
    }
  }
  announceHere(id, { status: 'done', result, error: null });
  return outcome;
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

/**
 * Deletes the raw bodies of finished feed events (done, failed, rejected) received more than
 * retentionDays ago; the events and their results stay, marked with body_purged_at. A body still
 * queued or running is kept whatever its age. Idempotent; returns how many bodies went.
 */
export async function purgeFeedBodies(db: Db, retentionDays: number, limit = 1000): Promise<number> {
  return db.transaction(async (trx) => {
    const ids: string[] = await trx('feed_events')
      .whereIn('status', ['done', 'failed', 'rejected'])
      .whereNull('body_purged_at')
      .where('created_at', '<', trx.raw('now() - make_interval(days => ?)', [retentionDays]))
      .orderBy('created_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .pluck('id');
    if (ids.length === 0) return 0;
    await trx('feed_event_chunks').whereIn('feed_id', ids).delete();
    await trx('feed_events').whereIn('id', ids).update({ body_purged_at: trx.fn.now() });
    return ids.length;
  });
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
