import type { Knex } from 'knex';
import { loadListings, writeListings } from '../../db/listings-store.js';
import { applyListing, type UpsertAction } from '../../pipeline/apply-listing.js';
import type { FeedListing } from '../../pipeline/feed-listing.js';
import { ListingIssues } from '../../pipeline/issues.js';
import { listingKey } from '../../pipeline/listing-key.js';
import type { CanonicalListing } from '../../pipeline/types.js';

export interface BatchOutcome {
  /** Per listing of the batch that was applied (valid), in feed order. */
  upserts: { listingKey: string; action: UpsertAction }[];
  invalid: number;
}

/** Applies the listings in feed order onto a starting state; duplicates see the earlier one's result. */
function applyAll(items: FeedListing[], start: Map<string, CanonicalListing>) {
  const state = new Map(start);
  const actions: { key: string; action: UpsertAction | 'invalid' }[] = [];
  const toWrite = new Map<string, CanonicalListing>();
  for (const item of items) {
    const key = listingKey(item.delta!.office, item.delta!.uniqueId);
    const applied = applyListing(state.get(key) ?? null, item);
    actions.push({ key, action: applied.action });
    if (applied.action === 'inserted' || applied.action === 'updated') {
      state.set(key, applied.listing);
      toWrite.set(key, applied.listing);
    }
  }
  return { actions, toWrite };
}

/**
 * DESIGN.md §5.2 for a batch of one feed: one query reads the stored versions, pure steps decide
 * every action, and only changed records are written, in one transaction that locks them first.
 * Should another feed have changed one of them in between, the batch is decided again on the
 * locked rows, so nothing written by the other feed is lost. An unchanged batch writes nothing.
 */
export async function applyBatch(db: Knex, items: FeedListing[]): Promise<BatchOutcome> {
  const usable = items.filter((item) => item.delta && !item.issues.hasErrors);
  const keys = [...new Set(usable.map((item) => listingKey(item.delta!.office, item.delta!.uniqueId)))];
  const snapshot = await loadListings(db, keys);
  let decided = applyAll(usable, snapshot);

  if (decided.toWrite.size > 0) {
    const writeKeys = [...decided.toWrite.keys()];
    decided = await db.transaction(async (trx) => {
      const locked = await loadListings(trx, writeKeys, { forUpdate: true });
      const moved = writeKeys.some((k) => locked.get(k)?.contentHash !== snapshot.get(k)?.contentHash || locked.get(k)?.modTime !== snapshot.get(k)?.modTime);
      let final = decided;
      if (moved) {
        // Decide again from the rows as they are now; issue lists are not added to twice.
        const again = usable.map((item) => ({ ...item, issues: Object.assign(new ListingIssues(item.index), { list: [...item.issues.list] }) }));
        final = applyAll(again, new Map([...snapshot, ...locked]));
      }
      const written = await writeListings(trx, [...final.toWrite.values()]);
      // A record the guard refused was overtaken by a newer one from another feed.
      for (const a of final.actions) if ((a.action === 'inserted' || a.action === 'updated') && !written.has(a.key)) a.action = 'stale_ignored';
      return final;
    });
  }
  const upserts: BatchOutcome['upserts'] = [];
  let invalid = items.length - usable.length;
  for (const a of decided.actions) {
    if (a.action === 'invalid') invalid += 1;
    else upserts.push({ listingKey: a.key, action: a.action });
  }
  return { upserts, invalid };
}
