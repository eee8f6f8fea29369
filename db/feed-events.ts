import { createHash, randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import type { PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import copyBinary from 'pg-copy-streams-binary';
import type { FeedOutcome } from '../lib/feed-outcome.js';
import { scrubCredentials } from '../pipeline/reaxml/scrub-credentials.js';
import type { FeedFormat } from '../pipeline/types.js';
import { announceFeedDone } from './feed-done.js';
import type { Db } from './knex.js';
import { iso, isoOrNull } from './row-values.js';

export type FeedStatus = 'queued' | 'running' | 'done' | 'failed' | 'rejected';

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
}

export interface FeedEvent extends FeedEventInput {
  id: string;
  status: FeedStatus;
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

/** A running feed's counts so far. */
export interface FeedProgress {
  parsed: number;
  applied: number;
  invalid: number;
}

/** The raw feed is kept in chunks of this size, so neither side ever holds it whole. */
const CHUNK_BYTES = 1024 * 1024;

export const toEvent = (row: any): FeedEvent => ({
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

/**
 * Stores a feed event and its body in one transaction, streaming the body in chunks: either the
 * whole feed is stored (status queued) or nothing is (an error while reading the body rolls back).
 * A REAXML body's root credentials are masked first; size and sha256 are of what is stored.
 * `beforeCommit` sees the stored event inside the transaction; should it name another event
 * instead (db/feed-dedupe.ts), nothing is stored and that one is returned.
 */
export async function storeFeedEvent(
  db: Knex,
  input: FeedEventInput,
  sent: AsyncIterable<Buffer>,
  beforeCommit?: (trx: Knex.Transaction, stored: FeedEvent) => Promise<FeedEvent | null>,
): Promise<FeedEvent> {
  const id = randomUUID();
  const body = input.format === 'reaxml' ? scrubCredentials(sent) : sent;
  let instead: FeedEvent | null = null;
  const stored = await db
    .transaction(async (trx) => {
      await trx('feed_events').insert({
        id,
        source: input.source,
        key_id: input.keyId,
        office_scope: input.officeScope,
        alert_email: input.alertEmail,
        format: input.format,
        mode: input.mode,
        context: input.context,
        body_kind: input.bodyKind,
        body_bytes: 0,
        body_sha256: '',
        status: 'queued',
      });
      const hash = createHash('sha256');
      let seq = 0;
      let total = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = async () => {
        if (pendingBytes === 0) return;
        await trx('feed_event_chunks').insert({ feed_id: id, seq, data: Buffer.concat(pending, pendingBytes) });
        seq += 1;
        pending = [];
        pendingBytes = 0;
      };
      for await (const chunk of body) {
        hash.update(chunk);
        total += chunk.length;
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes >= CHUNK_BYTES) await flush();
      }
      await flush();
      const [row] = await trx('feed_events')
        .where({ id })
        .update({ body_bytes: total, body_sha256: hash.digest('hex') })
        .returning('*');
      const event = toEvent(row);
      instead = (await beforeCommit?.(trx, event)) ?? null;
      if (instead) throw ROLL_BACK;
      return event;
    })
    .catch((err) => {
      if (err !== ROLL_BACK) throw err;
      return null;
    });
  return stored ?? instead!;
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
    await pipeline(conn.query(copyTo(sql)), copyBinary.rawReader(), async (bytes: AsyncIterable<Buffer>) => {
      for await (const part of bytes) parts.push(part);
    });
    // Chunks are never empty (storeFeedEvent writes none), so no bytes means no such chunk.
    return parts.length === 0 ? null : Buffer.concat(parts);
  } finally {
    await db.client.releaseConnection(conn);
  }
}

/** The stored body, chunk by chunk; the next chunk is fetched while this one is used. */
export async function* readFeedBody(db: Db, id: string): AsyncGenerator<Buffer> {
  let next = readChunk(db, id, 0);
  for (let seq = 0; ; seq += 1) {
    const data = await next;
    if (!data) return;
    next = readChunk(db, id, seq + 1);
    next.catch(() => undefined); // awaited on the next turn; should the reader stop early, ignored
    yield data;
  }
}

export async function getFeedEvent(db: Db, id: string): Promise<FeedEvent | null> {
  const row = await db('feed_events').where({ id }).first();
  return row ? toEvent(row) : null;
}

/**
 * Claims an event for processing: queued, running after a crash, or failed (a job runs for a
 * failed feed only when an operator retried it, from the board or the admin API). null when it is
 * done, rejected (its sender was told nothing was accepted) or unknown.
 */
export async function startFeedEvent(db: Db, id: string): Promise<FeedEvent | null> {
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
    .returning('*');
  return row ? toEvent(row) : null;
}

/** Stores a feed's result; returns what became of it (the outcome the database works out from the result). */
export async function finishFeedEvent(db: Db, id: string, result: Record<string, unknown>): Promise<FeedOutcome> {
  const [row] = await db('feed_events')
    .where({ id })
    .update({
      status: 'done',
      result: JSON.stringify(result),
      error: null,
      error_detail: null,
      progress: null,
      updated_at: db.fn.now(),
      finished_at: db.fn.now(),
    })
    .returning('outcome');
  await announceFeedDone(db, id);
  return row.outcome;
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
 * Returns whether the event was still open (false: it had finished, or is unknown).
 */
export async function failFeedEvent(db: Db, id: string, status: 'failed' | 'rejected', error: string, detail: string | null = null): Promise<boolean> {
  const n = await db('feed_events')
    .where({ id })
    .whereIn('status', ['queued', 'running'])
    .update({ status, error, error_detail: detail, updated_at: db.fn.now(), finished_at: db.fn.now() });
  if (n > 0) await announceFeedDone(db, id);
  return n > 0;
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

/** Just the status, for cheap polling while a request waits. */
export async function feedEventStatus(db: Db, id: string): Promise<FeedStatus | null> {
  const row = await db('feed_events').where({ id }).first('status');
  return row ? row.status : null;
}
