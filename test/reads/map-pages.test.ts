import { expect } from 'chai';
import { loadSyntheticListings } from '../../bench/synthetic-listings.js';
import type { Db } from '../../db/knex.js';
import { distanceSql } from '../../db/listing-search/filters.js';
import { searchPage } from '../../db/listing-search/order.js';
import type { ListingSearch } from '../../db/listing-search/search.js';
import { createPublicReads } from '../../db/public-reads.js';
import { readShares } from '../../db/read-shares.js';
import type { HttpError } from '../../lib/errors.js';
import { eventually, scratchDatabase } from '../helpers.js';
import { scratchEmbeddedDatabase } from '../service.js';

const search = (s: Partial<ListingSearch>): ListingSearch => ({ saleMode: 'both', sort: { key: 'newest', reverse: false }, limit: 24, offset: 0, ...s });

/**
 * Circles over the synthetic listings (localities 5 km apart from 144.0 E, 38.5 S, each listing
 * within about 1 km of its locality's centre): on a locality's centre, between localities, at the
 * grid's corner and beyond it, from a few hundred metres to most of the grid, and far from them all.
 */
const CIRCLES = [
  { lat: -37.8, lng: 144.9, radiusKm: 2 },
  { lat: -37.8, lng: 144.9, radiusKm: 0.3 },
  { lat: -37.775, lng: 144.925, radiusKm: 3 },
  { lat: -38.5, lng: 144.0, radiusKm: 10 },
  { lat: -39.0, lng: 143.5, radiusKm: 60 },
  { lat: -37.2, lng: 145.4, radiusKm: 150 },
  // Nothing near: the bound's box would cross the antimeridian, or reach the pole.
  { lat: -37.5, lng: 179.9, radiusKm: 500 },
  { lat: 88, lng: 144.5, radiusKm: 500 },
];

for (const database of ['postgres', 'pglite'] as const) {
  describe(`Map pages: bounded pages of a map area (${database === 'postgres' ? 'PostgreSQL' : 'PGlite'})`, function () {
    this.timeout(300_000);
    let db: Db;
    let drop: () => Promise<void>;

    before(async () => {
      const scratch = database === 'postgres' ? await scratchDatabase('map_pages') : await scratchEmbeddedDatabase();
      db = scratch.db;
      drop = () => scratch.drop();
      await loadSyntheticListings(db, database === 'postgres' ? 20_000 : 3_000, { quiet: true });
    });
    after(async () => {
      await drop?.();
    });

    /** Every match of the circle in the page's order, as the search without its bound would sort them: by distance (the same SQL), then key. */
    const wholeCircle = async (s: ListingSearch): Promise<string[]> => {
      const { lat, lng, radiusKm } = s.near!;
      const d = distanceSql(lat, lng);
      const dir = s.sort.reverse ? 'DESC' : 'ASC';
      const { rows } = await db.raw(
        `SELECT listing_key FROM (SELECT listing_key, ${d.sql} AS d FROM listings WHERE is_shown AND is_public AND geo IS NOT NULL) m
          WHERE d <= ? ORDER BY d ${dir}, listing_key ${dir}`,
        [...d.bindings, radiusKm],
      );
      return rows.map((r: { listing_key: string }) => r.listing_key);
    };
    const keysOf = (json: string[]) => json.map((text) => (JSON.parse(text) as { listingKey: string }).listingKey);

    it('gives each page by offset and by cursor exactly as the whole circle sorted by distance, ties by key', async () => {
      const reads = createPublicReads(db, { totalTtlMs: 0 });
      let compared = 0;
      for (const near of CIRCLES) {
        for (const reverse of [false, true]) {
          const truth = await wholeCircle(search({ near, sort: { key: 'distance', reverse } }));
          for (const [offset, limit] of [
            [0, 24],
            [0, 1],
            [7, 5],
            [40, 24],
          ]) {
            const page = await reads.searchListings(search({ near, sort: { key: 'distance', reverse }, offset, limit }));
            expect(keysOf(page.json), `${JSON.stringify(near)} reverse ${reverse} offset ${offset} limit ${limit}`).to.deep.equal(
              truth.slice(offset, offset + limit),
            );
            compared += page.json.length;
          }
          // Five pages of 7 by cursor.
          let s = search({ near, sort: { key: 'distance', reverse }, limit: 7 });
          const walked: string[] = [];
          for (let i = 0; i < 5; i += 1) {
            const page = await reads.searchListings(s);
            walked.push(...keysOf(page.json));
            if (!page.after) break;
            s = { ...s, after: page.after };
          }
          expect(walked, `${JSON.stringify(near)} reverse ${reverse} by cursor`).to.deep.equal(truth.slice(0, 35));
        }
      }
      expect(compared).to.be.greaterThan(100);
    });

    it('gives a map area newest first, crowded or not, as every match in it sorted: a box from the map index in time order, a crowded circle walked on the newest-first index', async () => {
      /** Every match of an area newest first, ties by key. */
      const wholeArea = async (area: string, bindings: number[]): Promise<string[]> => {
        const { rows } = await db.raw(
          `SELECT listing_key FROM listings WHERE is_shown AND is_public AND ${area} ORDER BY mod_time DESC, listing_key`,
          bindings,
        );
        return rows.map((r: { listing_key: string }) => r.listing_key);
      };
      // Past 50 matches an area counts as crowded here.
      const reads = createPublicReads(db, { totalTtlMs: 0, exactTotalMax: 50 });
      const d = distanceSql(-37.8, 144.9);
      const box = 'geo <@ box(point(?, ?), point(?, ?))';
      const areas: [Partial<ListingSearch>, string, number[]][] = [
        [{ bbox: [144.875, -37.825, 144.975, -37.725] }, box, [144.875, -37.825, 144.975, -37.725]],
        [{ bbox: [144, -38.5, 147, -36] }, box, [144, -38.5, 147, -36]],
        [{ bbox: [144.9, -37.8, 144.901, -37.799] }, box, [144.9, -37.8, 144.901, -37.799]],
        [{ near: { lat: -37.8, lng: 144.9, radiusKm: 40 } }, `${d.sql} <= ?`, [...(d.bindings as number[]), 40]],
        [{ near: { lat: -37.8, lng: 144.9, radiusKm: 1 } }, `${d.sql} <= ?`, [...(d.bindings as number[]), 1]],
      ];
      let crowded = 0;
      for (const [area, sql, bindings] of areas) {
        const truth = await wholeArea(sql, bindings);
        const first = await reads.searchListings(search({ ...area, limit: 10 }));
        if (first.totalIsLowerBound) crowded += 1;
        expect(keysOf(first.json), JSON.stringify(area)).to.deep.equal(truth.slice(0, 10));
        const deeper = await reads.searchListings(search({ ...area, offset: 30, limit: 10 }));
        expect(keysOf(deeper.json), `${JSON.stringify(area)} offset 30`).to.deep.equal(truth.slice(30, 40));
        let s = search({ ...area, limit: 10 });
        const walked: string[] = [];
        for (let i = 0; i < 4; i += 1) {
          const page = await reads.searchListings(s);
          walked.push(...keysOf(page.json));
          if (!page.after) break;
          s = { ...s, after: page.after };
        }
        expect(walked, `${JSON.stringify(area)} by cursor`).to.deep.equal(truth.slice(0, 40));
      }
      expect(crowded).to.be.greaterThan(1);
      if (database === 'postgres') {
        // The plan, not the time. A box of many alone, newest first, takes its newest from the map
        // index in time order (newest-in-area.ts); a crowded circle walks the newest-first index;
        // another circle reads the map index.
        const plan = async (area: Partial<ListingSearch>, options: { crowded?: boolean; newestBound?: boolean }) => {
          const s = search(area);
          const { sql, bindings } = searchPage(db, s, 'data::text AS json', options)
            .page.limit(s.limit + 1)
            .toSQL();
          const { rows } = await db.raw(`EXPLAIN ${sql}`, bindings);
          return rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
        };
        const box = await plan({ bbox: [144, -38.5, 147, -36] }, { newestBound: true });
        expect(box).to.match(/InitPlan 1 \(returns \$0\)/);
        expect(box).to.match(/Index Cond: \(\(geo <@ .*\) AND \(mod_time >= \$0\)\)/);
        // The bound's own read (map_newest_bound, sorts forbidden): the box's newest from the map index in time order.
        const config = await db.raw("SELECT proconfig FROM pg_proc WHERE proname = 'map_newest_bound'");
        expect(config.rows[0].proconfig).to.deep.equal(['enable_sort=off']);
        const inner = await db.transaction(async (trx) => {
          await trx.raw('SET LOCAL enable_sort = off');
          const { rows } = await trx.raw(
            `EXPLAIN SELECT mod_time FROM listings WHERE is_shown AND is_public AND geo <@ box(point(144, -38.5), point(147, -36))
              ORDER BY mod_time OPERATOR(public.<->) '10000-01-02 00:00:00+00'::timestamptz LIMIT 11`,
          );
          return rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
        });
        expect(inner)
          .to.match(/listings_shown_geo_idx/)
          .and.match(/Order By: \(mod_time OPERATOR\(public\.<->\)/)
          .and.not.match(/Sort/);
        const circle = { near: { lat: -37.8, lng: 144.9, radiusKm: 40 } };
        expect(await plan(circle, { crowded: true }))
          .to.match(/listings_public_recent_idx/)
          .and.not.match(/listings_shown_geo_idx|Sort Key/);
        expect(await plan(circle, {})).to.match(/listings_shown_geo_idx/);
      }
    });

    it('reads a bounded map page as a cheap read while map searches hold their share; one with other filters waits for the share', async function () {
      if (database === 'pglite') this.skip(); // one connection: costly reads take turns on it
      const reads = createPublicReads(db, { totalTtlMs: 300_000 });
      const bounded = [
        search({ bbox: [144.875, -37.825, 144.975, -37.725] }),
        search({ near: { lat: -37.8, lng: 144.9, radiusKm: 2 } }),
        search({ near: { lat: -37.8, lng: 144.9, radiusKm: 2 }, sort: { key: 'distance', reverse: false } }),
      ];
      const filtered = search({ bbox: [144.875, -37.825, 144.975, -37.725], minPrice: 500_000 });
      // Their totals counted first (a total counts against the map share, and is then kept).
      const first = await Promise.all([...bounded, filtered].map((s) => reads.searchListings(s)));
      const release: (() => void)[] = [];
      const holding = [0, 1].map(() => readShares(db).run('map', () => new Promise<void>((resolve) => release.push(resolve))));
      try {
        await eventually('the map share to be held', () => release.length === 2);
        for (const [i, s] of bounded.entries()) expect((await reads.searchListings(s)).json, JSON.stringify(s)).to.deep.equal(first[i].json);
        const refused = await reads.searchListings(filtered).catch((err: unknown) => err as HttpError);
        expect((refused as HttpError).status).to.equal(503);
        expect((refused as HttpError).message).to.match(/too many map searches/);
      } finally {
        for (const done of release) done();
        await Promise.all(holding);
      }
    });

    it('sorts only the matches within the bound, not every match in the circle (the plan, not the time)', async function () {
      if (database === 'pglite') this.skip(); // the same SQL; the counts are PostgreSQL's EXPLAIN
      const near = { lat: -37.8, lng: 144.9, radiusKm: 30 };
      const s = search({ near, sort: { key: 'distance', reverse: false } });
      const inCircle = (await wholeCircle(s)).length;
      const { sql, bindings } = searchPage(db, s, 'data::text AS json')
        .page.limit(s.limit + 1)
        .toSQL();
      const { rows } = await db.raw(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ${sql}`, bindings);
      /** The rows each scan of the map index gave (the bound's and the page's). */
      const scans: number[] = [];
      const visit = (node: Record<string, unknown>) => {
        if (node['Index Name'] === 'listings_shown_geo_idx') scans.push(node['Actual Rows'] as number);
        for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) visit(child);
      };
      visit(rows[0]['QUERY PLAN'][0].Plan);
      expect(inCircle).to.be.greaterThan(500);
      expect(scans, JSON.stringify(scans)).to.have.length(2);
      for (const n of scans) expect(n, `${JSON.stringify(scans)} of ${inCircle} in the circle`).to.be.lessThan(4 * (s.limit + 1));
    });
  });
}
