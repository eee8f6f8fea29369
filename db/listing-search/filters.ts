import type { Knex } from 'knex';
import { badRequest } from '../../lib/errors.js';
import { AGENT_KEY_SQL } from '../directory.js';
import { TEXT_CONFIGS } from '../search-columns.js';
import type { ListingSearch, OpenBound, Sql } from './search.js';

/** The filters of a listing search as SQL: what it matches (no order, no paging), and the keyword query of its words. */

/**
 * A listing's open homes not yet ended (listing_events, db/migrations/20261128140000_listing_events.ts)
 * that overlap the window: a date bound is midnight in the event's (the listing's) zone, so a day
 * is the listing's own day wherever it is.
 */
function openHomeWindowSql(from: OpenBound | undefined, to: OpenBound | undefined): Sql {
  const bindings: Knex.Value[] = [];
  const bound = (b: OpenBound, nextDay: boolean) => {
    if ('instant' in b) {
      bindings.push(b.instant);
      return '?::timestamptz';
    }
    bindings.push(b.date);
    return nextDay ? '((?::date + 1)::timestamp AT TIME ZONE e.zone)' : '(?::date::timestamp AT TIME ZONE e.zone)';
  };
  const lower = from ? ` AND e.ends_at > ${bound(from, false)}` : '';
  const upper = to ? ` AND e.starts_at < ${bound(to, true)}` : '';
  return {
    sql: `EXISTS (SELECT 1 FROM listing_events e WHERE e.listing_key = listings.listing_key AND e.kind = 'open_home' AND e.ends_at > now()${lower}${upper})`,
    bindings,
  };
}

/** The start of a listing's next open home not yet ended (null: none). */
export const NEXT_OPEN_HOME_SQL =
  "(SELECT min(e.starts_at) FROM listing_events e WHERE e.listing_key = listings.listing_key AND e.kind = 'open_home' AND e.ends_at > now())";

/** The Earth's mean radius in km (IUGG), for great-circle distances. */
export const EARTH_KM = 6371.0088;

/** Great-circle distance in km from a point (SQL expressions of its latitude and longitude) to a listing's public location (geo: x lng, y lat). */
export const greatCircleKmSql = (lat: string, lng: string) =>
  `(${EARTH_KM} * 2 * asin(least(1, sqrt(power(sin(radians(geo[1] - ${lat}) / 2), 2)
           + cos(radians(${lat})) * cos(radians(geo[1])) * power(sin(radians(geo[0] - ${lng}) / 2), 2)))))`;

/** Great-circle distance in km from a point to a listing's public location. */
export function distanceSql(lat: number, lng: number): Sql {
  return { sql: greatCircleKmSql('?::float8', '?::float8'), bindings: [lat, lat, lng] };
}

/**
 * The boxes (two across the antimeridian) of a bbox, as SQL on geo. `crowded`: the same test as
 * the function behind `<@` (on_pb), which the map index cannot serve and which PostgreSQL
 * estimates as keeping a third of the listings (it estimates `<@` as keeping a thousandth), so
 * that it walks the search's order and tests each listing (searchFilters).
 */
function boxesSql(crowded: boolean, minLng: number, minLat: number, maxLng: number, maxLat: number): Sql {
  const box = crowded ? 'on_pb(geo, box(point(?, ?), point(?, ?)))' : 'geo <@ box(point(?, ?), point(?, ?))';
  if (minLng <= maxLng) return { sql: box, bindings: [minLng, minLat, maxLng, maxLat] };
  return { sql: `(${box} OR ${box})`, bindings: [minLng, minLat, 180, maxLat, -180, minLat, maxLng, maxLat] };
}

/** The box around a circle, for the GiST index; the exact distance is checked after it. */
export function circleBox(lat: number, lng: number, radiusKm: number): [number, number, number, number] {
  const dLat = (radiusKm / EARTH_KM) * (180 / Math.PI);
  const minLat = Math.max(-90, lat - dLat);
  const maxLat = Math.min(90, lat + dLat);
  const cos = Math.cos((Math.max(Math.abs(minLat), Math.abs(maxLat)) * Math.PI) / 180);
  if (cos < 1e-6 || dLat * 2 >= 180) return [-180, minLat, 180, maxLat];
  const dLng = Math.min(180, dLat / cos);
  if (dLng >= 180) return [-180, minLat, 180, maxLat];
  const wrap = (x: number) => (x < -180 ? x + 360 : x > 180 ? x - 360 : x);
  return [wrap(lng - dLng), minLat, wrap(lng + dLng), maxLat];
}

/**
 * column is one of values: `= value` for one, `= ANY(values)` for several. With one value the
 * index that leads with the column gives its matches in the sort's order, so a page of a suburb
 * reads 25 entries; PostgreSQL (before 17) reads every match of `= ANY(...)` and sorts them, even
 * for an array of one (a city of 50,000 listings read whole for each page).
 */
function oneOf(q: Knex.QueryBuilder, column: string, values: string[]): void {
  if (values.length === 1) q.where(column, values[0]);
  else q.whereRaw(`${column} = ANY(?::text[])`, [values]);
}

/**
 * The listings a search matches (no order, no paging). `crowded`: the search's map area holds so
 * many listings (more than the exact total counts) that its page is found by walking the order's
 * index and testing each entry's location, so the area is asked in a form the map index cannot
 * serve (PostgreSQL, which keeps no statistics of points, would otherwise read every listing in
 * the area from it and sort them: 117,744 for a 1-degree box at a million listings, 254 ms,
 * against 0.4 ms walking the newest-first index).
 */
export function searchFilters(db: Knex, s: ListingSearch, crowded = false): Knex.QueryBuilder {
  const q = db('listings');
  // is_public is is_shown and on the market. The indexes over public listings need only it (and
  // answer from the index alone when is_shown is not asked too); the map and keyword indexes cover
  // every shown listing, so their searches also say is_shown, for the planner to choose them.
  if (s.status || s.q || s.bbox || s.near) q.whereRaw('is_shown');
  if (s.status) oneOf(q, 'status', s.status);
  else q.whereRaw('is_public');
  if (s.country) q.where('country', s.country);
  if (s.office) q.where('office', s.office);
  if (s.category) q.whereIn('category', s.category);
  if (s.subCategory) oneOf(q, 'sub_category_key', s.subCategory);
  if (s.locality) oneOf(q, 'locality_key', s.locality);
  if (s.region) oneOf(q, 'region_key', s.region);
  if (s.postcode) oneOf(q, 'postcode_key', s.postcode);
  if (s.saleMode !== 'both') q.where('sale_mode', s.saleMode);
  // Dates as feeds give them (YYYY-MM-DD, perhaps with a time) compare as text, by day.
  if (s.soldSince) q.whereRaw('left(sold_date, 10) >= ?', [s.soldSince.slice(0, 10)]);
  if (s.updatedSince) q.where('updated_at', '>=', s.updatedSince);
  if (s.listedSince) {
    q.whereRaw(`coalesce(left(data->>'listedDate', 10), to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')) >= ?`, [s.listedSince.slice(0, 10)]);
  }
  for (const [column, op, value] of [
    ['price_amount', '>=', s.minPrice],
    ['price_amount', '<=', s.maxPrice],
    ['bedrooms', '>=', s.minBedrooms],
    ['bedrooms', '<=', s.maxBedrooms],
    ['bathrooms', '>=', s.minBathrooms],
    ['car_spaces', '>=', s.minCarSpaces],
    ['land_area', '>=', s.minLandArea],
    ['land_area', '<=', s.maxLandArea],
  ] as const) {
    if (value !== undefined) q.where(column, op, value);
  }
  if (s.q) {
    if (s.tsquery === undefined) throw new Error('keywordQuery must resolve q before a search runs');
    // Words that are all stop words ("the") make an empty query: they match nothing.
    if (s.tsquery === '') q.whereRaw('false');
    else q.whereRaw('search_tsv @@ ?::tsquery', [s.tsquery]);
  }
  if (s.bbox) {
    const box = boxesSql(crowded, ...s.bbox);
    q.whereRaw(box.sql, box.bindings);
  }
  if (s.near) {
    const box = boxesSql(crowded, ...circleBox(s.near.lat, s.near.lng, s.near.radiusKm));
    const distance = distanceSql(s.near.lat, s.near.lng);
    q.whereRaw(box.sql, box.bindings).whereRaw(`${distance.sql} <= ?`, [...distance.bindings, s.near.radiusKm]);
  }
  if (s.openFrom || s.openTo) {
    const open = openHomeWindowSql(s.openFrom, s.openTo);
    q.whereRaw(open.sql, open.bindings);
  }
  if (s.agent) {
    q.whereRaw(
      `EXISTS (SELECT 1 FROM directory_agents d, jsonb_array_elements(coalesce(listings.data->'agents', '[]'::jsonb)) a
               WHERE d.agent_id = ? AND d.office = listings.office
                 AND ${AGENT_KEY_SQL} = d.agent_key)`,
      [s.agent],
    );
  }
  return q;
}

/**
 * PostgreSQL refusing a text search query for its size: too many operators stacked (an internal
 * error, "tsquery stack too small"), or past one of its program limits (54xxx).
 */
function isTextQueryTooComplex(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code !== 'string') return false;
  return e.code.startsWith('54') || (e.code === 'XX000' && typeof e.message === 'string' && /tsquery/.test(e.message));
}

/**
 * The keyword query of q: the words as a web search engine reads them, in each text configuration
 * (a listing matches in its own language's), the distinct ones joined by OR. Distinct, so that the
 * planner's estimate of how many listings match is that of the words, not of the same word counted
 * once per language. Empty when q holds only stop words.
 */
export async function keywordQuery(db: Knex, q: string): Promise<string> {
  const configs = [...new Set([...Object.values(TEXT_CONFIGS), 'simple'])];
  const { rows } = await db
    .raw('SELECT DISTINCT websearch_to_tsquery(config::regconfig, ?)::text AS query FROM unnest(?::text[]) AS config', [q, configs])
    .catch((err: unknown) => {
      // The API's limits (api/keyword-limits.ts) keep q within what PostgreSQL parses; should one
      // still be beyond it, the client hears so, not a 500.
      if (isTextQueryTooComplex(err)) throw badRequest('query.q is too complex for a keyword search; give fewer words and operators (-, or, quotes)');
      throw err;
    });
  const parts = (rows as { query: string }[]).map((r) => r.query).filter((text) => text !== '');
  return parts.length ? parts.map((text) => `(${text})`).join(' | ') : '';
}
