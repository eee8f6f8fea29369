import type { Knex } from 'knex';
import { markChangeSource } from '../../db/change-source.js';
import {
  advanceModTimes,
  insertNewListings,
  loadListings,
  loadVersions,
  refreshSourceHashes,
  type StoredVersion,
  writeListings,
} from '../../db/listings-store.js';
import type { Applied, UpsertAction } from '../../pipeline/applied.js';
import { applyListing } from '../../pipeline/apply-listing.js';
import { type FeedListing, fingerprintMapping } from '../../pipeline/feed-listing.js';
import { keyOfIdentity } from '../../pipeline/listing-key.js';
import { storedRowOfApplied } from '../../pipeline/stored-row.js';
import type { CanonicalListing } from '../../pipeline/types.js';

export interface BatchOutcome {
  /** Per valid listing of the batch, in feed order. */
  upserts: { listingKey: string; action: UpsertAction }[];
  invalid: number;
  /** Stored listings whose status this batch changed (sold, withdrawn, back on the market…), as written. */
  statusChanges: StatusChange[];
}

/** A stored listing's status before and after a feed wrote it. */
export interface StatusChange {
  listingKey: string;
  from: string;
  to: string;
}

type Decision = { key: string | null; action: UpsertAction | 'invalid' };
type Write = { applied: Extract<Applied, { listing: CanonicalListing }>; sourceHash: string };
/** An unchanged listing seen with a newer modTime: only its modTime and fingerprint are written. */
type Advance = { key: string; modTime: string; sourceHash: string; contentHash: string };

const keyOf = (item: FeedListing) => keyOfIdentity(item.identity);

/**
 * A listing whose source fingerprint equals the one its stored version was written from maps to
 * the same delta, and merging a delta twice changes nothing: it is unchanged without being
 * mapped. Archived listings are excluded (a reappearance restores them), and so are keys that
 * occur more than once in the batch (their order matters).
 */
function isKnownSource(item: FeedListing, stored: StoredVersion | undefined, occurrences: number): boolean {
  return stored !== undefined && occurrences === 1 && stored.status !== 'archived' && stored.sourceHash === item.sourceHash();
}

/**
 * Applies listings in feed order onto a starting state; duplicates see the earlier one's result.
 * occurrences: how many listings of the batch carry each key. A record is read only where another
 * listing of the batch has its key: a listing applied as new on a reading thread is written from
 * the row made there, its record never parsed here.
 */
function applyAll(items: FeedListing[], start: Map<string, CanonicalListing>, occurrences: Map<string, number>) {
  const state = new Map(start);
  const decisions = new Map<FeedListing, Decision>();
  const toWrite = new Map<string, Write>();
  const toAdvance = new Map<string, Advance>();
  for (const item of items) {
    const key = keyOf(item);
    const applied = applyListing(key ? (state.get(key) ?? null) : null, item);
    decisions.set(item, { key, action: applied.action });
    if (!key) continue;
    if (applied.action === 'inserted' || applied.action === 'updated' || (applied.action === 'unchanged' && applied.advanced)) {
      if (occurrences.get(key)! > 1) state.set(key, applied.listing);
      const write = { applied, sourceHash: item.sourceHash() };
      if (applied.action !== 'unchanged' || toWrite.has(key)) {
        toWrite.set(key, write);
        toAdvance.delete(key);
      } else {
        toAdvance.set(key, { key, modTime: applied.listing.modTime, sourceHash: write.sourceHash, contentHash: applied.listing.contentHash });
      }
    }
  }
  return { decisions, toWrite, toAdvance };
}

/** A batch decided against the store as it was read, ready to be written (writeBatch). */
export interface DecidedBatch {
  items: FeedListing[];
  keys: Map<FeedListing, string | null>;
  occurrences: Map<string, number>;
  versions: Map<string, StoredVersion>;
  /** Unchanged at once: the stored version was written from the same source. */
  known: Set<FeedListing>;
  /** The rest, mapped and decided against their stored records. */
  rest: FeedListing[];
  snapshot: Map<string, CanonicalListing>;
  decided: ReturnType<typeof applyAll>;
}

/**
 * Applying a batch of one feed (docs/architecture.md, Ingestion), first half: one light query reads the stored
 * fingerprints; known sources are unchanged at once. The rest are mapped and decided against their
 * stored records (a second query). Nothing is written, so it can run while the batch before is
 * being written; writeBatch checks what it decided against the rows it locks.
 */
export async function decideBatch(db: Knex, items: FeedListing[]): Promise<DecidedBatch> {
  const keys = new Map<FeedListing, string | null>();
  const occurrences = new Map<string, number>();
  for (const item of items) {
    const key = keyOf(item);
    keys.set(item, key);
    if (key) occurrences.set(key, (occurrences.get(key) ?? 0) + 1);
  }
  const versions = await loadVersions(db, [...occurrences.keys()]);
  const known = new Set<FeedListing>();
  const rest: FeedListing[] = [];
  for (const item of items) {
    const key = keys.get(item);
    if (key && isKnownSource(item, versions.get(key), occurrences.get(key)!)) known.add(item);
    else rest.push(item);
  }

  const restKeys = [...new Set(rest.map((item) => keys.get(item)).filter((k): k is string => k != null && versions.has(k)))];
  const snapshot = await loadListings(db, restKeys);
  return { items, keys, occurrences, versions, known, rest, snapshot, decided: applyAll(rest, snapshot, occurrences) };
}

/**
 * Second half: only changed records are written. A key the store did not have when the batch was
 * decided is inserted only if it is still absent (a row that does not exist yet cannot be locked);
 * the rest, and any such key another feed inserted meanwhile, are written in one transaction that
 * locks their rows first. Should another feed (or an earlier batch of this one) have changed one of
 * them since the batch was decided, its listings are decided again on the locked rows, so nothing
 * written in between is lost. An unchanged batch writes nothing, except the newer modTime (and
 * fingerprint) of listings re-sent with one, and, once after a mapping change, the new
 * fingerprints of its listings. `source` names the feed in the change log (db/change-source.ts).
 */
export async function writeBatch(db: Knex, batch: DecidedBatch, source?: string): Promise<BatchOutcome> {
  const { items, keys, occurrences, versions, known, rest, snapshot } = batch;
  const decisions = batch.decided.decisions;
  const toAdvance = batch.decided.toAdvance;
  const rowOf = (w: Write) => ({ row: storedRowOfApplied(w.applied), sourceHash: w.sourceHash });
  const writes = [...batch.decided.toWrite];
  const written = await insertNewListings(
    db,
    writes.filter(([key]) => !versions.has(key)).map(([, w]) => rowOf(w)),
  );
  const lockKeys = writes.map(([key]) => key).filter((key) => !written.has(key));
  /** Each stored key's status before its write, and the record written. */
  const before = new Map<string, string>();
  const finalWrites = new Map(batch.decided.toWrite);
  if (lockKeys.length > 0) {
    await db.transaction(async (trx) => {
      if (source) await markChangeSource(trx, source);
      const locked = await loadListings(trx, lockKeys, { forUpdate: true });
      for (const [key, listing] of locked) before.set(key, listing.status);
      const moved = lockKeys.some((k) => locked.get(k)?.contentHash !== snapshot.get(k)?.contentHash || locked.get(k)?.modTime !== snapshot.get(k)?.modTime);
      let toWrite = lockKeys.map((key) => batch.decided.toWrite.get(key)!);
      if (moved) {
        // Decide their listings again from the rows as they are now; issue lists are not added to twice.
        const lockedKeys = new Set(lockKeys);
        const redo = rest.filter((item) => lockedKeys.has(keys.get(item) ?? ''));
        const again = redo.map((item) => ({ ...item, issues: item.issues.copy() }));
        const redecided = applyAll(again, new Map([...snapshot, ...locked]), occurrences);
        for (const [i, item] of redo.entries()) decisions.set(item, redecided.decisions.get(again[i])!);
        for (const key of lockKeys) {
          toAdvance.delete(key);
          const advance = redecided.toAdvance.get(key);
          if (advance) toAdvance.set(key, advance);
        }
        toWrite = [...redecided.toWrite.values()];
        for (const key of lockKeys) finalWrites.delete(key);
        for (const [key, w] of redecided.toWrite) finalWrites.set(key, w);
      }
      for (const key of await writeListings(trx, toWrite.map(rowOf))) written.add(key);
    });
  }
  // A record not written was overtaken by a newer one from another feed (the guard refused it).
  for (const d of decisions.values()) if ((d.action === 'inserted' || d.action === 'updated') && !written.has(d.key!)) d.action = 'stale_ignored';

  // Unchanged listings that came with a newer modTime: it becomes the stored one (with their fingerprint).
  await advanceModTimes(db, [...toAdvance.values()]);

  // Unchanged listings whose stored fingerprint an older mapping (or another format) made: stamp
  // the current one, or they would be mapped again on every re-send. A fingerprint that differs
  // only because the source did (a modTime bumped on every export) is left alone: no write.
  await refreshSourceHashes(
    db,
    rest.flatMap((item) => {
      const key = keys.get(item);
      const stored = key ? versions.get(key) : undefined;
      const compared = key ? snapshot.get(key) : undefined;
      if (!key || !stored || !compared || occurrences.get(key) !== 1 || decisions.get(item)?.action !== 'unchanged' || toAdvance.has(key)) return [];
      if (fingerprintMapping(stored.sourceHash ?? '') === fingerprintMapping(item.sourceHash())) return [];
      return [{ key, sourceHash: item.sourceHash(), contentHash: compared.contentHash }];
    }),
  );

  const upserts: BatchOutcome['upserts'] = [];
  let invalid = 0;
  for (const item of items) {
    const decision: Decision = known.has(item) ? { key: keys.get(item)!, action: 'unchanged' } : decisions.get(item)!;
    if (decision.action === 'invalid') invalid += 1;
    else upserts.push({ listingKey: decision.key!, action: decision.action });
  }
  const statusChanges: StatusChange[] = [];
  for (const [key, from] of before) {
    const to = written.has(key) ? finalWrites.get(key)?.applied.listing.status : undefined;
    if (to !== undefined && to !== from) statusChanges.push({ listingKey: key, from, to });
  }
  return { upserts, invalid, statusChanges };
}
