/**
 * The ceiling of bench/ingest's first load, run in a process of its own so that its pre-built rows
 * never weigh on the bench's memory or its garbage collector: every stored row of the schema's
 * listings table is read back and built before timing (the record as JSON text), the table is
 * emptied, and the rows are inserted again in batches of 500 as a first load writes them
 * (insertListingRows: COPY on PostgreSQL). The table ends as it started. Prints
 * `{ "seconds", "rows" }`.
 *
 *   node dist/bench/write-alone.js <database url> <schema>
 */
import { createDb } from '../db/knex.js';
import { insertListingRows, LISTING_ROW_COLUMNS, type ListingRow } from '../db/listings-store.js';
import { measure } from './synthetic-feed.js';

const [databaseUrl, schema] = process.argv.slice(2);
const db = createDb({ databaseUrl, dataDir: '', schema });
try {
  // The JSON columns as text, as a feed's rows carry them.
  const stored = await db('listings').select(LISTING_ROW_COLUMNS.map((c) => (c === 'data' || c === 'public_patch' ? db.raw('??::text AS ??', [c, c]) : c)));
  const rows = stored.map((r: Record<string, any>) => ({ ...r, mod_time: r.mod_time instanceof Date ? r.mod_time.toISOString() : r.mod_time }) as ListingRow);
  await db('listings').delete();
  // As bench/ingest settles PostgreSQL before each measurement.
  await db.raw('VACUUM ANALYZE listings');
  await db.raw('CHECKPOINT').catch(() => undefined);
  const m = await measure(async () => {
    for (let i = 0; i < rows.length; i += 500) await insertListingRows(db, rows.slice(i, i + 500));
  });
  console.log(JSON.stringify({ seconds: m.seconds, rows: rows.length }));
} finally {
  await db.destroy();
}
