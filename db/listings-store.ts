import type { Knex } from 'knex';
import type { CanonicalListing } from '../pipeline/types.js';

/** The stored record; the hidden column is the truth for the operator flag. */
const toListing = (row: { data: CanonicalListing; hidden: boolean }): CanonicalListing => ({ ...row.data, hidden: row.hidden });

/** Stored listings by key, for a batch of feed listings (one query). With forUpdate the rows are locked in key order. */
export async function loadListings(db: Knex, keys: string[], options: { forUpdate?: boolean } = {}): Promise<Map<string, CanonicalListing>> {
  if (keys.length === 0) return new Map();
  const query = db('listings').select('listing_key', 'data', 'hidden').whereRaw('listing_key = ANY(?::text[])', [keys]).orderBy('listing_key');
  const rows = options.forUpdate ? await query.forUpdate() : await query;
  return new Map(rows.map((row: any) => [row.listing_key, toListing(row)]));
}

/**
 * Inserts or updates whole records in one statement. The update is guarded in SQL so a record
 * older than the stored one never overwrites it (concurrent feeds converge on the newest), and
 * the hidden flag is never touched by ingestion. Returns the keys actually written.
 */
export async function writeListings(db: Knex, listings: CanonicalListing[]): Promise<Set<string>> {
  if (listings.length === 0) return new Set();
  const rows = listings.map((l) => ({
    listing_key: l.listingKey,
    office: l.office,
    unique_id: l.uniqueId,
    format: l.format,
    status: l.status,
    mod_time: l.modTime,
    content_hash: l.contentHash,
    hidden: l.hidden,
    data: JSON.stringify({ ...l, hidden: undefined }),
  }));
  const written: { listing_key: string }[] = await db('listings')
    .insert(rows)
    .onConflict('listing_key')
    .merge({
      format: db.raw('excluded.format'),
      status: db.raw('excluded.status'),
      mod_time: db.raw('excluded.mod_time'),
      content_hash: db.raw('excluded.content_hash'),
      data: db.raw('excluded.data'),
      updated_at: db.fn.now(),
    })
    .where('listings.mod_time', '<=', db.raw('excluded.mod_time'))
    .returning('listing_key');
  return new Set(written.map((r) => r.listing_key));
}
