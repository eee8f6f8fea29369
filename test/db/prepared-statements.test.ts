import { expect } from 'chai';
import pg from 'pg';
import { loadSyntheticListings } from '../../bench/synthetic-listings.js';
import { createDb, type Db } from '../../db/knex.js';
import { planStable } from '../../db/listing-search/plan.js';
import type { ListingSearch } from '../../db/listing-search/search.js';
import { createPublicReads } from '../../db/public-reads.js';
import { postgresUrl, scratchDatabase } from '../helpers.js';

const search = (s: Partial<ListingSearch>): ListingSearch => ({ saleMode: 'both', sort: { key: 'newest', reverse: false }, limit: 5, offset: 0, ...s });

/** A value as SQL literal text: numbers as they are, strings and arrays of strings quoted. */
function literal(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return pg.escapeLiteral(`{${value.map((v) => `"${String(v).replace(/["\\]/g, '\\$&')}"`).join(',')}}`);
  return pg.escapeLiteral(String(value));
}

/** What a plan does, without its costs: each node's type and index, nested. */
type Skeleton = { node: string; index?: string; children: Skeleton[] };
function skeleton(plan: Record<string, unknown>): Skeleton {
  const children = ((plan.Plans as Record<string, unknown>[] | undefined) ?? []).map(skeleton);
  return { node: plan['Node Type'] as string, ...(plan['Index Name'] ? { index: plan['Index Name'] as string } : {}), children };
}

describe('prepared statements for the public reads on PostgreSQL', () => {
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  /** Localities by public listings, most first. */
  let localities: string[];
  /** One search of each of five plan-stable shapes (a shape is the query's text, whatever the values). */
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
    this.timeout(180_000);
    scratch = await scratchDatabase('prepared');
    await loadSyntheticListings(scratch.db, 20_000, { quiet: true });
    await scratch.db.raw('ANALYZE listings');
    const { rows } = await scratch.db.raw('SELECT locality_key FROM listings WHERE is_public GROUP BY 1 ORDER BY count(*) DESC, 1');
    localities = rows.map((r: { locality_key: string }) => r.locality_key);
    SHAPES = [
      search({}),
      search({ sort: { key: 'price', reverse: false }, saleMode: 'sale' }),
      search({ locality: [localities[0]] }),
      search({ locality: localities.slice(0, 2) }),
      search({ country: 'AU', category: ['residential'] }),
    ];
  });
  after(async () => {
    for (const db of opened) await db.destroy();
    await scratch?.drop();
  });

  it('runs a search shape as one prepared statement whatever its values, with the answers of an unprepared search', async () => {
    const db = readDb(8);
    const reads = createPublicReads(db, { totalTtlMs: 0 });
    // The busiest suburbs and the quietest, in turns.
    const values = [...localities.slice(0, 4), ...localities.slice(-4)];
    for (const locality of [...values, ...values]) {
      const s = search({ locality: [locality] });
      const page = await reads.searchListings(s);
      expect(page.json, locality).to.deep.equal((await truth(s)).json);
      expect(page.json.length, locality).to.be.greaterThan(0);
    }
    const statements = await prepared(db);
    expect(statements).to.have.length(1);
    expect(statements[0].generic + statements[0].custom).to.equal(16);
  });

  it('prepares only searches whose plan does not depend on their values: not ranges, keywords, map areas with other filters, statuses or an offset', async () => {
    const db = readDb(8);
    const reads = createPublicReads(db, { totalTtlMs: 0 });
    const unstable: Partial<ListingSearch>[] = [
      { minPrice: 500_000 },
      { maxBedrooms: 2 },
      { updatedSince: '2020-01-01T00:00:00Z' },
      { q: 'garden', tsquery: "'garden'" },
      { bbox: [144, -38, 145, -37], minPrice: 500_000 },
      { near: { lat: -37.8, lng: 144.9, radiusKm: 5 }, category: ['land'] },
      { near: { lat: -37.8, lng: 144.9, radiusKm: 5 }, sort: { key: 'distance', reverse: true } },
      { near: { lat: -37.8, lng: 144.9, radiusKm: 5 }, sort: { key: 'distance', reverse: false }, saleMode: 'sale' },
      { status: ['sold'] },
      { offset: 5 },
      { locality: [localities[0]], minBathrooms: 2 },
      // A sort whose index does not hold the filter: which plan is best depends on how many
      // listings the filter keeps (a price sort over a country of 70% of the listings or of 5%).
      { country: 'US', saleMode: 'sale', sort: { key: 'price', reverse: false } },
      { locality: [localities[0]], saleMode: 'sale', sort: { key: 'price', reverse: true } },
      { sort: { key: 'price', reverse: false } },
      { country: 'AU', sort: { key: 'bedrooms', reverse: true } },
      { office: 'OFF17', sort: { key: 'updated', reverse: false } },
      { saleMode: 'rent' },
      { subCategory: ['house'] },
      { region: ['vic'] },
      // The locality index does not carry the category: a rare one in a busy suburb is planned
      // otherwise than a common one.
      { locality: [localities[0]], category: ['residential'] },
      { office: 'OFF17', locality: [localities[0]] },
    ];
    for (const s of unstable) {
      expect(planStable(search(s)), JSON.stringify(s)).to.equal(false);
      expect((await reads.searchListings(search(s))).json).to.deep.equal((await truth(search(s))).json);
    }
    expect(await prepared(db)).to.deep.equal([]);
    for (const s of SHAPES) expect(planStable(s)).to.equal(true);
    // A cursor's page is plan-stable too.
    const first = await reads.searchListings(SHAPES[2]);
    expect(planStable({ ...SHAPES[2], after: first.after! })).to.equal(true);
  });

  it("a plan-stable shape's generic plan is the plan PostgreSQL makes for each of its values", async function () {
    this.timeout(60_000);
    const db = readDb(64);
    const reads = createPublicReads(db, { totalTtlMs: 0 });
    const sent: { sql: string; bindings: unknown[] }[] = [];
    db.on('query', (q: { sql: string; bindings: unknown[] }) => {
      if (q.sql.includes('page_keys')) sent.push(q);
    });
    const busiest = localities[0];
    const quietest = localities[localities.length - 1];
    const cursorOf = async (s: ListingSearch, pages: number) => {
      let page = await reads.searchListings(s);
      for (let i = 1; i < pages; i += 1) page = await reads.searchListings({ ...s, after: page.after! });
      return page.after!;
    };
    // Each shape with values far apart: the busiest suburb and the quietest, countries of
    // 70% and 5% of the listings, sales and rentals, a first page and one deep in by cursor.
    const families: ListingSearch[][] = [
      [search({}), search({ limit: 24 })],
      [search({ locality: [busiest] }), search({ locality: [quietest] })],
      [search({ locality: [busiest, localities[1]] }), search({ locality: [quietest, localities[localities.length - 2]] })],
      [search({ country: 'AU', saleMode: 'sale' }), search({ country: 'US', saleMode: 'rent' })],
      [search({ country: 'AU' }), search({ country: 'US' })],
      [search({ office: 'OFF17' }), search({ office: 'OFF1999' })],
      [search({ category: ['residential'] }), search({ category: ['land'] })],
      [search({ sort: { key: 'price', reverse: false }, saleMode: 'sale' }), search({ sort: { key: 'price', reverse: false }, saleMode: 'rent' })],
      [search({ sort: { key: 'price', reverse: true }, saleMode: 'sale' }), search({ sort: { key: 'price', reverse: true }, saleMode: 'rent' })],
      [search({ sort: { key: 'updated', reverse: false } }), search({ sort: { key: 'updated', reverse: false }, limit: 24 })],
      [search({ office: 'OFF17', category: ['residential'] }), search({ office: 'OFF1999', category: ['land', 'rural'] })],
      [search({ country: 'AU', saleMode: 'sale', category: ['residential'] }), search({ country: 'US', saleMode: 'rent', category: ['land'] })],
      [search({ postcode: ['1234'] }), search({ postcode: ['9999', '1000'] })],
      // A map area alone: a box over every listing and one over none; a circle of 100 m and one of 500 km.
      [search({ bbox: [140, -40, 150, -30] }), search({ bbox: [10, 10, 10.01, 10.01] })],
      [search({ near: { lat: -37.8, lng: 144.9, radiusKm: 500 } }), search({ near: { lat: -37.8, lng: 144.9, radiusKm: 0.1 } })],
      [
        search({ near: { lat: -37.8, lng: 144.9, radiusKm: 500 }, sort: { key: 'distance', reverse: false } }),
        search({ near: { lat: 10, lng: 10, radiusKm: 0.1 }, sort: { key: 'distance', reverse: false } }),
      ],
    ];
    for (const family of families) {
      for (const s of family) expect(planStable(s), JSON.stringify(s)).to.equal(true);
      const withCursor = [...family, { ...family[0], after: await cursorOf(family[0], 40) }, { ...family[1], after: await cursorOf(family[1], 2) }];
      for (const s of withCursor) {
        sent.length = 0;
        await reads.searchListings(s);
        const [{ sql, bindings }] = sent;
        const [{ name }] = (await db.raw('SELECT name FROM pg_prepared_statements WHERE statement = ?', [sql])).rows;
        const plan = async (mode: string) => {
          await db.raw(`SET plan_cache_mode = ${mode}`);
          // EXECUTE takes its values as literals, which take the prepared statement's types.
          const { rows } = await db.raw(`EXPLAIN (FORMAT JSON) EXECUTE ${name}(${bindings.map(literal).join(', ')})`);
          return skeleton(rows[0]['QUERY PLAN'][0].Plan);
        };
        try {
          expect(await plan('force_generic_plan'), JSON.stringify(s)).to.deep.equal(await plan('force_custom_plan'));
        } finally {
          await db.raw('RESET plan_cache_mode');
        }
      }
    }
  });

  it('keeps at most the number asked for on each connection, deallocating the least recently used, and an evicted shape runs again', async () => {
    const db = readDb(3);
    const reads = createPublicReads(db, { totalTtlMs: 0 });
    const pages: string[][] = [];
    for (const s of SHAPES) pages.push((await reads.searchListings(s)).json);
    expect(await prepared(db)).to.have.length(3);
    // The first two shapes were evicted, and their statements are gone from the server too.
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

  it('0 prepares nothing', async () => {
    const db = readDb(0);
    const reads = createPublicReads(db, { totalTtlMs: 0 });
    for (const s of SHAPES) expect((await reads.searchListings(s)).json).to.deep.equal((await truth(s)).json);
    expect(await prepared(db)).to.deep.equal([]);
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
