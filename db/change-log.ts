import type { Knex } from 'knex';
import type * as Row from './rows.js';

/**
 * The change log (migration 20261128100000_change_log): rows are appended by triggers in the
 * writing transaction; this module numbers them in commit order, purges them past their window and
 * reads them. docs/architecture.md, The change log.
 */

/** Rows one sequencer statement numbers; a run repeats until fewer are left. */
const SEQUENCE_BATCH = 10_000;

/**
 * Numbers the committed rows that have no position yet (RESO's EntityEventSequence), in the order
 * they were written, after every position given before, in batches of one round trip each (the
 * sequence_change_log function). Runs take turns on the head row, and each
 * batch sees every row committed before it took the head, so a row committed later always gets a
 * higher position than any a reader could have seen: positions follow commit order. Safe to run
 * in any number of processes at once. Returns how many rows were numbered.
 */
export async function sequenceChanges(db: Knex): Promise<number> {
  return (await sequenceChangesPassing(db, [])).numbered;
}

/**
 * A reader of the log (a cursor of change_log_cursors) as the numbering lets it pass over rows it
 * would do nothing with (migration 20261128213000_change_log_passes).
 */
export interface PassingReader {
  /** Its cursor's name. */
  name: string;
  /** The most rows it reads in a turn. */
  rows: number;
  /** The rows it acts on, as 'Resource:kind' (a row of another kind it only passes over). */
  kinds: readonly string[];
  /** A query answering (one boolean) whether anything takes what it makes of those rows. */
  consumers: string;
}

/**
 * The numbering sequenceChanges describes, and in the same round trip each reader passes over the rows it would make
 * nothing of (none of its kinds, or nothing to consume them): its cursor moves as its own turn
 * would have moved it. Returns how many rows were numbered and the readers that still need a turn
 * of their own (rows for them, their cursor busy with a turn, or more rows than a turn reads).
 */
export async function sequenceChangesPassing(db: Knex, readers: readonly PassingReader[]): Promise<{ numbered: number; turns: string[] }> {
  const turns = new Set<string>();
  let numbered = 0;
  for (;;) {
    const { rows } = await db.raw('SELECT numbered, turns FROM sequence_change_log_passing(?, ?::jsonb)', [SEQUENCE_BATCH, JSON.stringify(readers)]);
    numbered += Number(rows[0].numbered);
    for (const name of rows[0].turns as string[]) turns.add(name);
    if (Number(rows[0].numbered) < SEQUENCE_BATCH) return { numbered, turns: [...turns] };
  }
}

/** The log's ends: the newest position given, and the first from which no row has been purged. */
export async function changeLogBounds(db: Knex): Promise<{ lastSeq: number; completeFrom: number }> {
  const row = await db('change_log_head').first('last_seq', 'complete_from');
  return { lastSeq: Number(row.last_seq), completeFrom: Number(row.complete_from) };
}

/** Kinds a listing's public history is made of (kept past the window while the listing is stored and not archived). */
export const HISTORY_KINDS = ['published', 'price_changed', 'status_changed'] as const;

/** Rows one purge statement deletes; a run repeats until fewer are left. */
const PURGE_BATCH = 10_000;

/**
 * Deletes rows numbered more than `windowDays` ago, and first moves the log's complete start past
 * them: a reader whose checkpoint is older than that start may have missed events and must
 * replicate from scratch. A listing's history rows stay while the listing is stored and not
 * archived (its public history needs them); they are below the complete start, so no event reader
 * sees them, and they go with the listing's archive event when that leaves the window. Returns how
 * many rows were deleted.
 */
export async function purgeChangeLog(db: Knex, windowDays: number): Promise<number> {
  const { rows } = await db.raw('SELECT max(seq) AS last FROM change_log WHERE seq IS NOT NULL AND sequenced_at < now() - make_interval(days => ?)', [
    windowDays,
  ]);
  if (rows[0].last === null) return 0;
  const lastOld = Number(rows[0].last);
  const head = await db('change_log_head').first('complete_from');
  const from = Number(head.complete_from);
  if (lastOld < from) return 0;
  await db.raw('UPDATE change_log_head SET complete_from = greatest(complete_from, ?::bigint + 1)', [lastOld]);
  let total = 0;
  for (;;) {
    const { rows: gone } = await db.raw(
      `DELETE FROM change_log c WHERE c.id IN (
         SELECT id FROM change_log d
          WHERE d.seq BETWEEN ? AND ?
            AND NOT (d.resource = 'Property' AND d.kind = ANY(?::text[]) AND (d.public_before OR d.public_after)
                     AND EXISTS (SELECT 1 FROM listings l WHERE l.listing_key = d.record_key AND l.status <> 'archived'))
          LIMIT ?)
       RETURNING c.resource, c.record_key, c.kind, c.seq`,
      [from, lastOld, [...HISTORY_KINDS], PURGE_BATCH],
    );
    // An archived listing's history goes with its archive event.
    const archived = (gone as { resource: string; record_key: string; kind: string; seq: string }[]).filter(
      (r) => r.resource === 'Property' && r.kind === 'archived',
    );
    if (archived.length > 0) {
      await db.raw(
        `DELETE FROM change_log c USING unnest(?::text[], ?::bigint[]) AS a(record_key, seq)
          WHERE c.resource = 'Property' AND c.record_key = a.record_key AND c.seq < a.seq`,
        [archived.map((r) => r.record_key), archived.map((r) => r.seq)],
      );
    }
    total += gone.length;
    if (gone.length < PURGE_BATCH) return total;
  }
}

/** A numbered row of the log, as its readers see it. */
export interface LoggedChange {
  seq: number;
  resource: string;
  recordKey: string;
  office: string | null;
  kind: string;
  oldStatus: string | null;
  newStatus: string | null;
  oldPrice: Record<string, unknown> | null;
  newPrice: Record<string, unknown> | null;
  /** Whether public reads showed the record before the change, and after it. */
  publicBefore: boolean;
  publicAfter: boolean;
  source: string | null;
  /** When it was numbered (after its transaction committed). */
  sequencedAt: Date;
}

/**
 * The numbered rows after a reader's cursor (named; made at 0 the first time), at most `limit`,
 * with the cursor locked for the rest of the transaction: readers of one name take turns, and
 * moving the cursor in the same transaction as what the reader makes of the rows means each row
 * is turned into something once, never lost and never twice.
 */
export async function readAfterCursor(trx: Knex.Transaction, name: string, limit: number): Promise<LoggedChange[]> {
  // One statement: the cursor made or locked (an upsert locks its row as FOR UPDATE would, and
  // returns it as the last holder left it), then the rows after it.
  const { rows } = await trx.raw(
    `WITH cursor AS (
       INSERT INTO change_log_cursors (name) VALUES (?) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING seq
     )
     SELECT l.seq, l.resource, l.record_key, l.office, l.kind, l.old_status, l.new_status, l.old_price, l.new_price,
            l.public_before, l.public_after, l.source, l.sequenced_at
       FROM change_log l, cursor WHERE l.seq > cursor.seq ORDER BY l.seq LIMIT ?`,
    [name, limit],
  );
  type Logged = Pick<
    Row.ChangeLog,
    | 'seq'
    | 'resource'
    | 'record_key'
    | 'office'
    | 'kind'
    | 'old_status'
    | 'new_status'
    | 'old_price'
    | 'new_price'
    | 'public_before'
    | 'public_after'
    | 'source'
  > & { sequenced_at: Date };
  return rows.map((r: Logged) => ({
    seq: Number(r.seq),
    resource: r.resource,
    recordKey: r.record_key,
    office: r.office,
    kind: r.kind,
    oldStatus: r.old_status,
    newStatus: r.new_status,
    oldPrice: r.old_price,
    newPrice: r.new_price,
    publicBefore: r.public_before,
    publicAfter: r.public_after,
    source: r.source,
    sequencedAt: new Date(r.sequenced_at),
  }));
}

/** Moves a reader's cursor (locked by readAfterCursor in this transaction) past `seq`. */
export async function moveCursor(trx: Knex.Transaction, name: string, seq: number): Promise<void> {
  await trx('change_log_cursors').where({ name }).update({ seq });
}
