import type { Knex } from 'knex';
import { filterNames } from './plan.js';
import type { ListingSearch } from './search.js';

/**
 * The newest-first page of a map box, bounded: without it the map index gives every listing in
 * the box, all of which are sorted for a page of 25, so a page costs what the box holds (four
 * suburbs of a city of a million listings hold over a thousand, a state hundreds of thousands).
 * With it a page reads about twice its own size from the index, however dense the box:
 *
 * 1. the map index is keyed on the location and the modTime (migration 20261129000000), so it
 *    gives the box's public listings in order of their modTime's distance from a time after every
 *    modTime (`<->`, btree_gist), which is newest first. map_newest_bound reads the first k of
 *    them (k = offset + limit + 1) and answers the oldest of those, T: the k newest matches all
 *    have a modTime of T or later (fewer than k matches: T is the oldest of them, bounding nothing);
 * 2. the page is then taken, sorted with its ties by key as every newest-first page is, from the
 *    box's matches with a modTime of T or later: the same index reads the location and the time
 *    together.
 *
 * So the page is exactly the one every match sorted would give, ties at T included. Only the pages
 * by offset of a box with no other filter, not across the antimeridian (two boxes, which one
 * ordered index scan cannot read), are bounded so: with another filter the index's newest entries
 * may all fail it; a page after a cursor is read as a circle's is (public-reads.ts).
 */

/**
 * From how many matches a box's page is bounded. Below it, sorting the box's matches from the map
 * index costs less than the bound's read in time order (about 0.5 ms for 25 entries, plus a call):
 * 1,591 matches sorted took 0.6-0.7 ms at a million listings, the bounded page 1.0 ms (pgbench, one
 * client); past it the sort grows with the box and the bound does not.
 */
export const NEWEST_BOUND_FROM = 2_000;

/** Whether a search's page may be read newest first from a bound: a map box alone, newest first, by offset. */
export function newestInAreaBounded(s: ListingSearch): boolean {
  const filters = filterNames(s);
  return s.bbox !== undefined && s.bbox[0] <= s.bbox[2] && s.sort.key === 'newest' && !s.sort.reverse && !s.after && filters.size === 1;
}

/**
 * Narrows `keys` (the search's matches, newest first) to those no older than its k-th newest match
 * (map_newest_bound, migration 20261129000000: the box's public listings, newest first from the map
 * index, as searchFilters asks a box alone).
 */
export function boundNewestInArea(keys: Knex.QueryBuilder, s: ListingSearch, k: number): void {
  const [minLng, minLat, maxLng, maxLat] = s.bbox!;
  // A subquery, run once before the page's scan: its value is not guessed at planning, so one plan serves every box.
  keys.whereRaw(`mod_time >= (SELECT map_newest_bound(box(point(?, ?), point(?, ?)), ${Number(k)}))`, [minLng, minLat, maxLng, maxLat]);
}
