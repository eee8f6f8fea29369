import { createHash, randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import type { PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import copyBinary from 'pg-copy-streams-binary';
import { scrubCredentials } from '../pipeline/reaxml/scrub-credentials.js';
import { type FeedEvent, type FeedEventInput, type FeedRequest, toEvent } from './feed-events.js';
import type { Db } from './knex.js';
import type * as Row from './rows.js';

/**
 * The feed body store: a feed's raw body, stored with its event in chunks (feed_event_chunks) as
 * it arrives, read back chunk by chunk, and purged past its retention. The event's life cycle
 * after it is stored (claimed, progress, finished, failed) is db/feed-events.ts.
 */

/** The raw feed is kept in chunks of this size, so neither side ever holds it whole. */
const CHUNK_BYTES = 1024 * 1024;

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
