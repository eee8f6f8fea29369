import type { Knex } from 'knex';
import { storeFeedEvent } from './feed-bodies.js';
import type { FeedEvent, FeedEventInput } from './feed-events.js';
import type { Db } from './knex.js';
import type * as Row from './rows.js';

export interface SftpFile {
  office: string;
  sha256: string;
  fileName: string;
  claimName: string;
  feedId: string;
}

/**
 * Records a claimed file and stores its feed event in one transaction, unless the office already
 * had this content: then nothing is stored and the earlier file's row is returned as `duplicateOf`.
 */
export async function recordSftpFile(
  db: Db,
  file: { office: string; sha256: string; fileName: string; claimName: string },
  event: FeedEventInput,
  body: Buffer,
): Promise<{ event: FeedEvent } | { duplicateOf: SftpFile }> {
  return db.transaction(async (trx) => {
    const earlier = await trx('sftp_files').where({ office: file.office, sha256: file.sha256 }).first();
    if (earlier) return { duplicateOf: toFile(earlier) };
    const stored = await storeFeedEvent(
      trx,
      event,
      (async function* () {
        yield body;
      })(),
    );
    // A racing watcher with the same content loses on the primary key and rolls back its event.
    await trx('sftp_files').insert({
      office: file.office,
      sha256: file.sha256,
      file_name: file.fileName,
      claim_name: file.claimName,
      feed_id: stored.id,
      status: 'queued',
    });
    return { event: stored };
  });
}

const toFile = (row: Row.SftpFile): SftpFile => ({
  office: row.office,
  sha256: row.sha256,
  fileName: row.file_name,
  claimName: row.claim_name,
  feedId: row.feed_id,
});

/** A queued file whose feed has finished, with what the feed came to. */
export interface FinishedFile extends SftpFile {
  feedStatus: string;
  result: Record<string, unknown> | null;
  error: string | null;
}

/**
 * Moves finished files of an office under row locks: `move` is called for each file whose feed
 * is done, failed or rejected, and the row is marked moved when it returns. Rows another watcher
 * holds are skipped (SKIP LOCKED), so two watchers never move the same file.
 */
export async function finishSftpFiles(db: Knex, office: string, move: (file: FinishedFile) => Promise<string>): Promise<number> {
  return db.transaction(async (trx) => {
    const rows = await trx('sftp_files as f')
      .join('feed_events as e', 'e.id', 'f.feed_id')
      .where({ 'f.office': office, 'f.status': 'queued' })
      .whereIn('e.status', ['done', 'failed', 'rejected'])
      .select('f.*', 'e.status as feed_status', 'e.result', 'e.error')
      .orderBy('f.created_at')
      .forUpdate('f')
      .skipLocked();
    for (const row of rows) {
      const outcome = await move({ ...toFile(row), feedStatus: row.feed_status, result: row.result ?? null, error: row.error ?? null });
      await trx('sftp_files').where({ office, sha256: row.sha256 }).update({ status: 'moved', outcome, moved_at: trx.fn.now() });
    }
    return rows.length;
  });
}

/** Claim names of an office that have a row (files in processing/ without one are orphans). */
export async function knownClaimNames(db: Knex, office: string, claimNames: string[]): Promise<Set<string>> {
  if (claimNames.length === 0) return new Set();
  return new Set(await db('sftp_files').where({ office }).whereIn('claim_name', claimNames).pluck('claim_name'));
}

/**
 * Per office, its claimed files whose feeds are not ingested yet (queued or running): what an
 * office already has waiting on the ingest queue, which the watcher holds within its share.
 */
export async function unfinishedFilesByOffice(db: Knex, offices: string[]): Promise<Map<string, number>> {
  if (offices.length === 0) return new Map();
  const rows = await db('sftp_files as f')
    .join('feed_events as e', 'e.id', 'f.feed_id')
    .where('f.status', 'queued')
    .whereIn('f.office', offices)
    .whereIn('e.status', ['queued', 'running'])
    .groupBy('f.office')
    .select('f.office', db.raw('count(*)::int AS n'));
  return new Map(rows.map((r: { office: string; n: number }) => [r.office, r.n]));
}
