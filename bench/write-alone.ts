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
import { insertListingRows } from '../db/listings-store.js';
import { storedListingRows } from './stored-rows.js';
import { measure } from './synthetic-feed.js';

const [databaseUrl, schema] = process.argv.slice(2);
const db = createDb({ databaseUrl, dataDir: '', schema });
try {
  const rows = await storedListingRows(db);
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
