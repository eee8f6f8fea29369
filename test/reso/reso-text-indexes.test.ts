import { expect } from 'chai';
import { loadSyntheticListings } from '../../bench/synthetic-listings.js';
import { filterSql } from '../../db/reso-query.js';
import { RESOURCES } from '../../db/reso-resources.js';
import { parseFilter } from '../../lib/odata-filter.js';
import { startTestService, type TestService } from '../service.js';

/** Every index a plan (EXPLAIN's JSON) reads, and whether it reads the table in full. */
function indexesOf(plan: unknown): { indexes: string[]; seqScan: boolean } {
  const indexes: string[] = [];
  let seqScan = false;
  const walk = (node: Record<string, unknown>) => {
    if (typeof node['Index Name'] === 'string') indexes.push(node['Index Name']);
    if (node['Node Type'] === 'Seq Scan') seqScan = true;
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk((plan as { Plan: Record<string, unknown> }[])[0].Plan);
  return { indexes, seqScan };
}

for (const database of ['postgres', 'pglite'] as const) {
  describe(`RESO Web API: City eq, contains/tolower on City and startswith on PostalCode are planned on indexes (${database})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    before(async () => {
      svc = await startTestService({ database });
      // Enough listings (3,000 localities such as "Bondi 42", postcodes 1000–9999) for the planner's statistics to mean something.
      await loadSyntheticListings(svc.db, 20_000, { quiet: true });
      await svc.db.raw('ANALYZE listings');
    });
    after(() => svc.close());

    /** The plan of a Property read with this filter, as the planner makes it over the listings loaded. */
    const planOf = async (filter: string) => {
      const property = RESOURCES.Property;
      const where = filterSql(property, parseFilter(filter));
      return svc.db.transaction(async (trx) => {
        const { rows } = await trx.raw(
          `EXPLAIN (FORMAT JSON) SELECT listing_key FROM ${property.from} WHERE (${property.visible}) AND ${where.sql}`,
          where.bindings,
        );
        const plan = rows[0]['QUERY PLAN'];
        return indexesOf(typeof plan === 'string' ? JSON.parse(plan) : plan);
      });
    };

    for (const [filter, index] of [
      ["City eq 'Bondi 42'", 'listings_reso_city_trgm_idx'],
      ["contains(City,'ondi 42')", 'listings_reso_city_trgm_idx'],
      ["contains(tolower(City),'bondi 42')", 'listings_reso_city_trgm_idx'],
      ["tolower(City) eq 'bondi 42'", 'listings_reso_city_trgm_idx'],
      ["startswith(City,'Bondi 4')", 'listings_reso_city_trgm_idx'],
      ["startswith(PostalCode,'123')", 'listings_reso_postcode_prefix_idx'],
    ] as const) {
      it(`${filter}: reads ${index}, not the whole table`, async () => {
        const { indexes, seqScan } = await planOf(filter);
        expect(indexes, filter).to.include(index);
        expect(seqScan, filter).to.equal(false);
      });
    }

    it('Lookup filtered by LookupName reads the listings once, for that lookup only', async () => {
      const lookup = RESOURCES.Lookup;
      const passes = async (filter: string) => {
        const where = filterSql(lookup, parseFilter(filter));
        const { rows } = await svc.db.raw(`EXPLAIN (ANALYZE, FORMAT JSON) SELECT lookup_key FROM ${lookup.from} WHERE ${where.sql}`, where.bindings);
        const plan = rows[0]['QUERY PLAN'];
        let listings = 0;
        const walk = (node: Record<string, unknown>) => {
          // A branch the planner left in but never ran (a one-time filter that is false) does not count.
          if (node['Relation Name'] === 'listings' && Number(node['Actual Loops']) > 0) listings += 1;
          for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
        };
        walk((typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan);
        return listings;
      };
      expect(await passes("LookupName eq 'City'")).to.equal(1);
      expect(await passes("LookupName eq 'StandardStatus'")).to.equal(0);
      expect(await passes("LookupValue eq 'Closed'"), 'unfiltered by name: a pass for each feed-text lookup').to.equal(5);
    });

    it('a filter no index answers is planned as a scan (the check can fail)', async () => {
      const { indexes } = await planOf("contains(PublicRemarks,'pool')");
      expect(indexes).not.to.include('listings_reso_city_trgm_idx');
      expect(indexes).not.to.include('listings_reso_postcode_prefix_idx');
    });
  });
}
