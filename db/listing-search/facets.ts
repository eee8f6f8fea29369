import type { Knex } from 'knex';
import { searchFilters } from './filters.js';
import type { FacetName, ListingSearch } from './search.js';

/** A listing search's facets: counts of each asked facet's values over all its matches. */

/** Sale price bands, and weekly rent bands (the public amount). */
const SALE_BANDS = [250_000, 500_000, 750_000, 1_000_000, 1_500_000, 2_000_000, 3_000_000, 5_000_000];
const RENT_BANDS = [300, 400, 500, 750, 1000, 1500];

function bandSql(mode: 'sale' | 'rent', edges: number[]): string {
  const cases = edges.map((edge, i) => `WHEN price_amount < ${edge} THEN '${mode}:${i === 0 ? 0 : edges[i - 1]}-${edge}'`);
  return `CASE ${cases.join(' ')} ELSE '${mode}:${edges[edges.length - 1]}+' END`;
}

const FACET_SQL: Record<FacetName, string> = {
  category: 'category',
  subCategory: 'sub_category_key',
  bedrooms: 'bedrooms::text',
  locality: 'initcap(locality_key)',
  priceBand: `CASE WHEN price_amount IS NULL THEN 'none' WHEN sale_mode = 'rent' THEN ${bandSql('rent', RENT_BANDS)} ELSE ${bandSql('sale', SALE_BANDS)} END`,
  status: `CASE status WHEN 'under_offer' THEN 'underOffer' ELSE status END`,
};

/** The most values a facet lists (the most common first); locality can have thousands. */
export const FACET_VALUES_SHOWN = 100;

/** Counts of each asked facet over all the search's matches, in one scan. */
export async function searchFacets(db: Knex, s: ListingSearch, facets: FacetName[]): Promise<Record<string, Record<string, number>>> {
  const columns = facets.map((f, i) => `${FACET_SQL[f]} AS f${i}`);
  const filtered = searchFilters(db, s).select(db.raw(columns.join(', ')));
  const { rows } = await db.raw(
    `SELECT ${facets.map((_f, i) => `f${i}, GROUPING(f${i}) AS g${i}`).join(', ')}, count(*)::int AS n
       FROM (?) matches GROUP BY GROUPING SETS (${facets.map((_f, i) => `(f${i})`).join(', ')})`,
    [filtered],
  );
  const out: Record<string, Record<string, number>> = {};
  facets.forEach((facet, i) => {
    const values = (rows as Record<string, unknown>[])
      .filter((r) => Number(r[`g${i}`]) === 0)
      .map((r) => [r[`f${i}`] === null ? 'none' : String(r[`f${i}`]), Number(r.n)] as const)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, FACET_VALUES_SHOWN);
    out[facet] = Object.fromEntries(values);
  });
  return out;
}
