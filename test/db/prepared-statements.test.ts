import { expect } from 'chai';
import { loadSyntheticListings } from '../../bench/synthetic-listings.js';
import { createDb, type Db } from '../../db/knex.js';
import type { ListingSearch } from '../../db/listing-search.js';
import { createPublicReads } from '../../db/public-reads.js';
import { postgresUrl, scratchDatabase } from '../helpers.js';

const search = (s: Partial<ListingSearch>): ListingSearch => ({ saleMode: 'both', sort: { key: 'newest', reverse: false }, limit: 5, offset: 0, ...s });

describe('prepared statements for the public reads on PostgreSQL', () => {
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  /** The three localities with the most public listings. */
  let localities: string[];
  /** One search of each of five shapes (a shape is the query's text, whatever the values). */
  let SHAPES: ListingSearch[];
  const opened: Db[] = [];
  /** A pool of one connection (so every query sees the same session) keeping `max` statements. */
  const readDb = (max: number) => {
    const db = createDb({ databaseUrl: postgresUrl, dataDir: '', schema: scratch.db.schemaName, poolMax: 1, preparedStatements: max });
    opened.push(db);
    return db;
  };
  const prepared = async (db: Db) =>
    (await db.raw('SELECT name, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements ORDER BY prepare_time')).rows as {
      name: string;
      generic: number;
      custom: number;
    }[];
  /** The same search unprepared, on the scratch database's own pool. */
  const truth = (s: ListingSearch) => createPublicReads(scratch.db).searchListings(s);

  before(async function () {
    this.timeout(120_000);
    scratch = await scratchDatabase('prepared');
    await loadSyntheticListings(scratch.db, 3000, { quiet: true });
    const { rows } = await scratch.db.raw('SELECT locality_key FROM listings WHERE is_public GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 3');
    localities = rows.map((r: { locality_key: string }) => r.locality_key);
    SHAPES = [
      search({}),
      search({ sort: { key: 'price', reverse: false }, saleMode: 'sale' }),
      search({ locality: [localities[0]] }),
      search({ locality: localities.slice(0, 2) }),
      search({ minBedrooms: 3, offset: 5 }),
    ];
  });
  after(async () => {
    for (const db of opened) await db.destroy();
    await scratch?.drop();
  });

  it('runs a search shape as one prepared statement whatever its values, each run planned for its own values', async () => {
    const db = readDb(8);
    const reads = createPublicReads(db, { totalTtlMs: 0 });
    for (const locality of [...localities, ...localities, ...localities].slice(0, 8)) {
      const s = search({ locality: [locality] });
      const page = await reads.searchListings(s);
      expect(page.json, locality).to.deep.equal((await truth(s)).json);
      expect(page.json.length, locality).to.be.greaterThan(0);
    }
    const statements = await prepared(db);
    expect(statements).to.have.length(1);
    // Past the five runs after which PostgreSQL may switch to one generic plan for all values:
    // every run was planned for its own values.
    expect(statements[0]).to.include({ custom: 8, generic: 0 });
    const [{ plan_cache_mode }] = (await db.raw('SHOW plan_cache_mode')).rows;
    expect(plan_cache_mode).to.equal('force_custom_plan');
  });

  it('keeps at most the number asked for on each connection, deallocating the least recently used, and an evicted shape runs again', async () => {
    const db = readDb(3);
    const reads = createPublicReads(db, { totalTtlMs: 0 });
    const pages: string[][] = [];
    for (const s of SHAPES) pages.push((await reads.searchListings(s)).json);
    const kept = await prepared(db);
    expect(kept).to.have.length(3);
    // The first two shapes were evicted; their statements are gone from the server too.
    for (const [i, s] of SHAPES.entries()) {
      const again = await reads.searchListings(s);
      expect(again.json, `shape ${i}`).to.deep.equal(pages[i]);
      expect(again.json, `shape ${i}`).to.deep.equal((await truth(s)).json);
    }
    expect(await prepared(db)).to.have.length(3);
  });

  it('a column added to the listings while statements are prepared (a migration during a deploy) does not break them', async () => {
    const db = readDb(8);
    const reads = createPublicReads(db, { totalTtlMs: 0 });
    const before = await reads.searchListings(SHAPES[2]);
    expect(await prepared(db)).to.have.length(1);
    await scratch.db.raw('ALTER TABLE listings ADD COLUMN prepared_test_extra int');
    try {
      expect((await reads.searchListings(SHAPES[2])).json).to.deep.equal(before.json);
    } finally {
      await scratch.db.raw('ALTER TABLE listings DROP COLUMN prepared_test_extra');
    }
    expect((await reads.searchListings(SHAPES[2])).json).to.deep.equal(before.json);
  });

  it('0 prepares nothing and leaves the plan cache alone', async () => {
    const db = readDb(0);
    const reads = createPublicReads(db, { totalTtlMs: 0 });
    for (const s of SHAPES) expect((await reads.searchListings(s)).json).to.deep.equal((await truth(s)).json);
    expect(await prepared(db)).to.deep.equal([]);
    const [{ plan_cache_mode }] = (await db.raw('SHOW plan_cache_mode')).rows;
    expect(plan_cache_mode).to.equal('auto');
  });

  it('a single listing is read through a prepared statement too', async () => {
    const db = readDb(8);
    const reads = createPublicReads(db, { totalTtlMs: 0 });
    const [first] = (await reads.searchListings(search({ limit: 1 }))).json.map((j) => JSON.parse(j) as { office: string; uniqueId: string });
    const json = await reads.getListingJson(first.office, first.uniqueId);
    expect(JSON.parse(json!)).to.include({ office: first.office, uniqueId: first.uniqueId });
    expect(await reads.getListingJson(first.office, 'no-such-listing')).to.equal(null);
    expect(await prepared(db)).to.have.length(2);
  });
});
