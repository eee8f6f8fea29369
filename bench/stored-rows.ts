import type { Db } from '../db/knex.js';
import { LISTING_ROW_COLUMNS, type ListingRow } from '../db/listings-store.js';

/** The schema's stored listings read back as a first load writes them: the columns it writes, its JSON as text and modTime as an ISO string. */
export async function storedListingRows(db: Db): Promise<ListingRow[]> {
  const stored = await db('listings').select(LISTING_ROW_COLUMNS.map((c) => (c === 'data' || c === 'public_patch' ? db.raw('??::text AS ??', [c, c]) : c)));
  return stored.map((r: Record<string, unknown>) => ({ ...r, mod_time: r.mod_time instanceof Date ? r.mod_time.toISOString() : r.mod_time }) as ListingRow);
}
