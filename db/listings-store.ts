import type { Knex } from 'knex';
import { listingKey } from '../pipeline/listing-key.js';
import type { StoredRow } from '../pipeline/stored-row.js';
import type { CanonicalListing } from '../pipeline/types.js';
import { canCopy, copyNewRows } from './copy-from-stdin.js';
import type * as Row from './rows.js';

/** The stored record; the hidden column is the truth for the operator flag. */
const toListing = (row: { data: CanonicalListing; hidden: boolean }): CanonicalListing => ({ ...row.data, hidden: row.hidden });

/** What the fast path needs to know of a stored listing: no record data. */
export interface StoredVersion {
  sourceHash: string | null;
  status: string;
}

/** Stored versions by key for a batch of feed listings (one light query). */
export async function loadVersions(db: Knex, keys: string[]): Promise<Map<string, StoredVersion>> {
  if (keys.length === 0) return new Map();
  const rows = await db('listings').select('listing_key', 'source_hash', 'status').whereRaw('listing_key = ANY(?::text[])', [keys]);
  return new Map(
    rows.map((row: Pick<Row.Listing, 'listing_key' | 'source_hash' | 'status'>) => [row.listing_key, { sourceHash: row.source_hash, status: row.status }]),
  );
}

/**
 * The source fingerprints of the offices' stored listings, archived ones left out (a reappearance
 * is mapped to restore them). None when the offices hold more than `limit` of them: a feed (at most
 * FEED_MAX_BYTES) holds far fewer listings, and reading them all would cost more than it saves.
 */
export async function storedSourceHashes(db: Knex, offices: readonly string[], limit = 500_000): Promise<string[]> {
  if (offices.length === 0) return [];
  const hashes: string[] = await db('listings')
    .whereRaw('office = ANY(?::text[])', [[...offices]])
    .whereNot('status', 'archived')
    .whereNotNull('source_hash')
    .limit(limit + 1)
    .pluck('source_hash');
  return hashes.length > limit ? [] : hashes;
}

/** One stored record, whatever its status, with its hidden flag (the office's own and operators' read); null when there is none. */
export async function storedListing(db: Knex, office: string, uniqueId: string): Promise<CanonicalListing | null> {
  const key = listingKey(office, uniqueId);
  return (await loadListings(db, [key])).get(key) ?? null;
}

/** Stored listings by key (one query). With forUpdate the rows are locked in key order. */
export async function loadListings(db: Knex, keys: string[], options: { forUpdate?: boolean } = {}): Promise<Map<string, CanonicalListing>> {
  if (keys.length === 0) return new Map();
  const query = db('listings').select('listing_key', 'data', 'hidden').whereRaw('listing_key = ANY(?::text[])', [keys]).orderBy('listing_key');
  const rows = options.forUpdate ? await query.forUpdate() : await query;
  return new Map(rows.map((row: Pick<Row.Listing, 'listing_key' | 'data' | 'hidden'>) => [row.listing_key, toListing(row)]));
}

/** A listings row as writeListings stores it: the stored row of the record, and the fingerprint of the source it came from. */
export interface ListingRow extends StoredRow {
  source_hash: string | null;
}

/**
 * Inserts or updates rows in one statement. The update is guarded in SQL so a record older than
 * the stored one never overwrites it (concurrent feeds converge on the newest), and the hidden
 * flag is never touched by ingestion. Returns the keys actually written.
 */
export async function upsertListingRows(db: Knex, rows: ListingRow[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const written: { listing_key: string }[] = await db('listings')
    .insert(rows)
    .onConflict('listing_key')
    .merge({
      format: db.raw('excluded.format'),
      status: db.raw('excluded.status'),
      mod_time: db.raw('excluded.mod_time'),
      content_hash: db.raw('excluded.content_hash'),
      source_hash: db.raw('excluded.source_hash'),
      data: db.raw('excluded.data'),
      public_patch: db.raw('excluded.public_patch'),
      // the commit horizon's stamp (db/commit-horizon.ts), not now()
      updated_at: db.raw('change_stamp()'),
    })
    .where('listings.mod_time', '<=', db.raw('excluded.mod_time'))
    .returning('listing_key');
  return new Set(written.map((r) => r.listing_key));
}

/** The columns of a listings row a feed writes (the rest are generated from them or have defaults). */
export const LISTING_ROW_COLUMNS: readonly (keyof ListingRow & string)[] = [
  'listing_key',
  'office',
  'unique_id',
  'format',
  'status',
  'mod_time',
  'content_hash',
  'hidden',
  'data',
  'public_patch',
  'source_hash',
];

/**
 * Rows from which a batch is copied rather than inserted. A COPY is two round trips and four
 * writes for its query, data and end; an INSERT of a few rows is one, and its parameters are
 * small (a push's listing or two: docs/performance.md, Small pushes).
 */
const COPY_FROM_ROWS = 20;

/**
 * Inserts rows whose keys the store does not have; a key it has by now (another feed inserted it)
 * is left alone. Returns the keys inserted. On PostgreSQL a batch of COPY_FROM_ROWS rows or more is
 * copied (copyNewRows); only when one of their keys has been stored meanwhile are they inserted by
 * the statement that skips it, which writes smaller batches at once.
 */
export async function insertListingRows(db: Knex, rows: ListingRow[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  if (rows.length >= COPY_FROM_ROWS && canCopy(db) && (await copyNewRows(db, 'listings', LISTING_ROW_COLUMNS, rows)))
    return new Set(rows.map((r) => r.listing_key));
  const inserted: { listing_key: string }[] = await db('listings').insert(rows).onConflict('listing_key').ignore().returning('listing_key');
  return new Set(inserted.map((r) => r.listing_key));
}

/** Records (their stored rows) to write, each with the fingerprint of the source it came from. */
type RecordsToWrite = { row: StoredRow; sourceHash: string | null }[];

const listingRows = (listings: RecordsToWrite): ListingRow[] => listings.map(({ row, sourceHash }) => ({ ...row, source_hash: sourceHash }));

/** Inserts whole records whose keys the store does not have (insertListingRows). */
export const insertNewListings = (db: Knex, listings: RecordsToWrite): Promise<Set<string>> => insertListingRows(db, listingRows(listings));

/** Inserts or updates whole records (upsertListingRows). */
export const writeListings = (db: Knex, listings: RecordsToWrite): Promise<Set<string>> => upsertListingRows(db, listingRows(listings));

/**
 * Stamps the fingerprint of the source each listing was just found unchanged from, where its stored
 * content is still the one it was compared with. Only the fingerprint column is written (not the
 * record, its modTime or updated_at). Used once per listing after a mapping change, so that later
 * re-sends take the fast path again.
 */
export async function refreshSourceHashes(db: Knex, rows: { key: string; sourceHash: string; contentHash: string }[]): Promise<void> {
  if (rows.length === 0) return;
  await db.raw(
    `UPDATE listings SET source_hash = v.source_hash
       FROM unnest(?::text[], ?::text[], ?::text[]) AS v(listing_key, source_hash, content_hash)
      WHERE listings.listing_key = v.listing_key AND listings.content_hash = v.content_hash
        AND listings.source_hash IS DISTINCT FROM v.source_hash`,
    [rows.map((r) => r.key), rows.map((r) => r.sourceHash), rows.map((r) => r.contentHash)],
  );
}

/**
 * For listings found unchanged in content but sent with a newer modTime: writes that modTime (the
 * column and the record's own) and the fingerprint of the source, nothing else, so the newest
 * modTime seen is what older records are judged against. Guarded like writeListings: only where
 * the stored content is still the one compared and the stored modTime is older.
 */
export async function advanceModTimes(db: Knex, rows: { key: string; modTime: string; sourceHash: string; contentHash: string }[]): Promise<void> {
  if (rows.length === 0) return;
  await db.raw(
    `UPDATE listings SET mod_time = v.mod_time::timestamptz, data = jsonb_set(data, '{modTime}', to_jsonb(v.mod_time)), source_hash = v.source_hash
       FROM unnest(?::text[], ?::text[], ?::text[], ?::text[]) AS v(listing_key, mod_time, source_hash, content_hash)
      WHERE listings.listing_key = v.listing_key AND listings.content_hash = v.content_hash
        AND listings.mod_time < v.mod_time::timestamptz`,
    [rows.map((r) => r.key), rows.map((r) => r.modTime), rows.map((r) => r.sourceHash), rows.map((r) => r.contentHash)],
  );
}
