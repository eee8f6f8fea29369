import type { ListingSearch } from './search.js';

/** The plan policy: which searches may run as prepared statements with a generic plan. */

/** What a search has besides its filters (planStable). */
const PAGING: ReadonlySet<string> = new Set(['sort', 'limit', 'offset', 'after', 'facets']);

/** The names of the filters a search has (saleMode only when not both; not its sort, paging or facets). */
export function filterNames(s: ListingSearch): Set<string> {
  const filters = new Set(Object.keys(s).filter((name) => s[name as keyof ListingSearch] !== undefined && !PAGING.has(name)));
  if (s.saleMode === 'both') filters.delete('saleMode');
  return filters;
}

/**
 * The filters of a newest-first page that an index in that order leads with (its filters joined by
 * commas, in this order), and whether the index also carries `category` (so a category filter is
 * checked on the index entries as the page is read).
 */
const NEWEST_INDEXED: ReadonlyMap<string, { carriesCategory: boolean }> = new Map([
  ['', { carriesCategory: true }],
  ['country', { carriesCategory: true }],
  ['country,saleMode', { carriesCategory: true }],
  ['office', { carriesCategory: true }],
  ['locality', { carriesCategory: false }],
  ['postcode', { carriesCategory: false }],
]);

/**
 * Whether one plan serves a search's page query whatever its values, so that it may run as a
 * prepared statement with PostgreSQL's generic plan (db/prepared-statements.ts): it starts at the
 * first match or at a cursor, and an index gives its order and its filters together, so which
 * index reads the page does not depend on the values (a suburb of 50,000 listings and one of 50
 * are both read newest first from the locality index). That is newest first with a country (and
 * sale mode), an office, localities or postcodes (NEWEST_INDEXED), or a map area (`bbox` or `near`),
 * by price within a sale mode, by distance (nearest first, db/listing-search/nearest.ts), or by
 * last change, with no other filter. Anything else is planned for its values: how many listings a filter keeps decides
 * whether to walk the sort's index and skip what the filter drops, or to read the filter's matches
 * and sort them (a price sort over a country of 70% of the listings or of 5%), and so do ranges,
 * keywords, map areas with other filters, statuses and agents. New filters are not plan-stable until added here.
 */
export function planStable(s: ListingSearch): boolean {
  if (s.offset !== 0) return false;
  const filters = filterNames(s);
  switch (s.sort.key) {
    case 'newest': {
      // A map area alone: the map index gives its matches, whatever the area (PostgreSQL keeps no
      // statistics of points, so it plans a country's box as it plans a street's).
      if (filters.size === 1 && (filters.has('bbox') || filters.has('near'))) return true;
      const category = filters.delete('category');
      const leading = ['country', 'saleMode', 'office', 'locality', 'postcode'].filter((name) => filters.has(name));
      const index = NEWEST_INDEXED.get(leading.join(','));
      return filters.size === leading.length && index !== undefined && (!category || index.carriesCategory);
    }
    case 'price':
      return filters.size === 1 && filters.has('saleMode');
    case 'distance':
      return filters.size === 1 && !s.sort.reverse;
    case 'updated':
      return filters.size === 0;
    default:
      return false;
  }
}
