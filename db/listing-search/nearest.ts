import type { Knex } from 'knex';
import { LITERAL } from '../prepared-statements.js';
import { distanceSql, EARTH_KM } from './filters.js';
import { filterNames } from './plan.js';
import type { ListingSearch } from './search.js';

/**
 * The nearest-first page of a radius search, bounded: without it, `sort=distance` works out the
 * great-circle distance of every listing in the circle and sorts them all for a page of 25, so a
 * page costs what the circle holds (a 2 km circle in a city of a million listings holds
 * thousands). With it a page reads about twice its own size, however dense the area:
 *
 * 1. the map index's nearest-neighbour order (`geo <-> centre`: flat degrees, not kilometres)
 *    gives the first k public listings (k = offset + limit + 1, after the cursor when there is
 *    one), and the farthest of them by great-circle distance, D, bounds the page: the k nearest
 *    by great-circle distance are at most D away, whichever k the index gave. The circle is not
 *    asked here: with it PostgreSQL, which estimates every area as holding a few listings,
 *    would rather read the whole circle and sort it; without it the index order is the only
 *    cheap plan, and k entries are read whether the circle holds none or thousands;
 * 2. the page is then taken, in the search's own order, from the matches in the box around the
 *    circle of radius D (from the map index), not from every match in the search's circle.
 *
 * So the page is exactly the one the whole circle sorted would give, ties and all: step 2 keeps
 * every match within D, and the box's margin (1%) only adds a few more to sort. Fewer than k
 * public listings, or a box of D that would cross the antimeridian or reach a pole, bound
 * nothing (the world's box): the search reads its circle as before. Only a radius search with
 * no other filter is bounded so: with another (a price range, a category) the index's nearest
 * listings may all fail it, and step 1 would read on far past the circle to find k that pass.
 */

/** The box, in degrees, holding every point within a great-circle distance of a centre (SQL of `lat`, `lng` and the distance in km). */
function boxAroundSql(lat: string, lng: string, km: string): string {
  // Every point of a path of length d from the centre lies within d of its latitude, and the path
  // turns through at most d / cos(the highest latitude) of longitude.
  const dLat = `(${km} / ${EARTH_KM} * 180 / pi() * 1.01 + 1e-9)`;
  const dLng = `(${dLat} / cos(radians(abs(${lat}) + ${dLat})))`;
  return `CASE WHEN abs(${lat}) + ${dLat} >= 89 OR ${lng} - ${dLng} < -180 OR ${lng} + ${dLng} > 180 THEN box(point(-180, -90), point(180, 90))
    ELSE box(point(${lng} - ${dLng}, ${lat} - ${dLat}), point(${lng} + ${dLng}, ${lat} + ${dLat})) END`;
}

/** Whether a search's page is read nearest first from a bound: a radius search with no other filter, sorted by distance, nearest first. */
export function nearestBounded(s: ListingSearch): boolean {
  const filters = filterNames(s);
  return s.near !== undefined && s.sort.key === 'distance' && !s.sort.reverse && filters.size === 1;
}

/**
 * Narrows `keys` (the search's matches in distance order) to the box of the bound: the farthest,
 * by great-circle distance, of the k public listings nearest the centre by the map index's order,
 * after the cursor (`afterCursor` adds its conditions to a query).
 */
export function boundNearest(db: Knex, s: ListingSearch, keys: Knex.QueryBuilder, k: number, afterCursor: (q: Knex.QueryBuilder) => void): void {
  const { lat, lng } = s.near!;
  const distance = distanceSql(lat, lng);
  const nearest = db('listings')
    .whereRaw('is_shown AND is_public')
    .select(db.raw(`${distance.sql} AS d`, distance.bindings))
    .orderByRaw('geo <-> point(?::float8, ?::float8)', [lng, lat])
    .limit(k, LITERAL);
  afterCursor(nearest);
  const box = boxAroundSql('centre.lat', 'centre.lng', 'bound.farthest');
  const around = db.raw(
    `SELECT CASE WHEN bound.n < ${Number(k)} THEN box(point(-180, -90), point(180, 90)) ELSE ${box} END
       FROM (SELECT count(*) AS n, max(d) AS farthest FROM (?) nearest) bound, (SELECT ?::float8 AS lat, ?::float8 AS lng) centre`,
    [nearest, lat, lng],
  );
  keys.whereRaw('geo <@ (?)', [around]);
}
