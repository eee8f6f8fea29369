import type { Knex } from 'knex';
import { badRequest } from '../lib/errors.js';
import type { ReadableStatus } from '../pipeline/listing-statuses.js';
import { AGENT_KEY_SQL } from './directory.js';
import { LITERAL } from './prepared-statements.js';
import { TEXT_CONFIGS } from './search-columns.js';

/** The statuses a search may ask for: those a public read answers. */
export type SearchStatus = ReadableStatus;
export type SortKey = 'newest' | 'updated' | 'price' | 'bedrooms' | 'landArea' | 'distance' | 'relevance' | 'nextOpenHome';
export type FacetName = 'category' | 'subCategory' | 'bedrooms' | 'locality' | 'priceBand' | 'status';
export const FACET_NAMES: readonly FacetName[] = ['category', 'subCategory', 'bedrooms', 'locality', 'priceBand', 'status'];

/** A listing search, checked and normalised (api/listing-search-query.ts makes it from the query string). */
export interface ListingSearch {
  country?: string;
  office?: string;
  category?: string[];
  subCategory?: string[];
  locality?: string[];
  region?: string[];
  postcode?: string[];
  saleMode: 'sale' | 'rent' | 'both';
  /** Absent: on the market (active and under offer). */
  status?: SearchStatus[];
  /** YYYY-MM-DD: compared by day. */
  soldSince?: string;
  /** An ISO 8601 instant. */
  updatedSince?: string;
  /** YYYY-MM-DD: compared by day (UTC). */
  listedSince?: string;
  minPrice?: number;
  maxPrice?: number;
  minBedrooms?: number;
  maxBedrooms?: number;
  minBathrooms?: number;
  minCarSpaces?: number;
  minLandArea?: number;
  maxLandArea?: number;
  q?: string;
  /** q as a text search query, from keywordQuery (set by the reads before the search runs). */
  tsquery?: string;
  /** minLng, minLat, maxLng, maxLat. */
  bbox?: [number, number, number, number];
  near?: { lat: number; lng: number; radiusKm: number };
  agent?: string;
  /** Open for inspection from (openFrom) and to (openTo): a YYYY-MM-DD date (that day in each listing's zone) or an ISO instant. */
  openFrom?: OpenBound;
  openTo?: OpenBound;
  sort: { key: SortKey; reverse: boolean };
  facets?: FacetName[];
  limit: number;
  offset: number;
  /** Start after this record (the previous page's last): its sort value as text and its key. */
  after?: { value: string; key: string };
}

type Sql = { sql: string; bindings: Knex.Value[] };

/** One end of an open-home window: a day (in each listing's own zone) or an instant. */
export type OpenBound = { date: string } | { instant: string };

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
const NEXT_OPEN_HOME_SQL =
  "(SELECT min(e.starts_at) FROM listing_events e WHERE e.listing_key = listings.listing_key AND e.kind = 'open_home' AND e.ends_at > now())";

const EARTH_KM = 6371.0088;

/** Great-circle distance in km from a point (SQL expressions of its latitude and longitude) to a listing's public location (geo: x lng, y lat). */
export const greatCircleKmSql = (lat: string, lng: string) =>
  `(${EARTH_KM} * 2 * asin(least(1, sqrt(power(sin(radians(geo[1] - ${lat}) / 2), 2)
           + cos(radians(${lat})) * cos(radians(geo[1])) * power(sin(radians(geo[0] - ${lng}) / 2), 2)))))`;

/** Great-circle distance in km from a point to a listing's public location. */
export function distanceSql(lat: number, lng: number): Sql {
  return { sql: greatCircleKmSql('?::float8', '?::float8'), bindings: [lat, lat, lng] };
}

/** The boxes (two across the antimeridian) of a bbox, as SQL on geo. */
function boxesSql(minLng: number, minLat: number, maxLng: number, maxLat: number): Sql {
  const box = 'geo <@ box(point(?, ?), point(?, ?))';
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

/** The listings a search matches (no order, no paging). */
export function searchFilters(db: Knex, s: ListingSearch): Knex.QueryBuilder {
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
    const box = boxesSql(...s.bbox);
    q.whereRaw(box.sql, box.bindings);
  }
  if (s.near) {
    const box = boxesSql(...circleBox(s.near.lat, s.near.lng, s.near.radiusKm));
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

/** The SQL type of each sort's value: what a cursor's value is read back as. */
const SORT_TYPE: Record<SortKey, 'timestamptz' | 'numeric' | 'float8' | 'float4'> = {
  newest: 'timestamptz',
  updated: 'timestamptz',
  price: 'numeric',
  bedrooms: 'numeric',
  landArea: 'numeric',
  distance: 'float8',
  relevance: 'float4',
  nextOpenHome: 'timestamptz',
};

const PG_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?[+-](\d{2})(:?\d{2}){0,2}$/;

/**
 * Whether a cursor's value is one PostgreSQL reads as the sort's type without an error, as its own
 * text output of that type is (a cursor is the client's to send back, so it may have been altered).
 */
export function isSortValue(key: SortKey, text: string): boolean {
  switch (SORT_TYPE[key]) {
    case 'timestamptz': {
      // A listing without an open home to come sorts last: at infinity.
      if (key === 'nextOpenHome' && (text === 'infinity' || text === '-infinity')) return true;
      const m = PG_TIMESTAMP.exec(text);
      if (!m) return false;
      const [y, mo, d, h, mi, sec, , offset] = m.slice(1).map((part) => Number(part?.replace(/^[.:]/, '') ?? 0));
      const date = new Date(Date.UTC(y, mo - 1, d, h, mi, sec));
      return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && h < 24 && mi < 60 && sec < 60 && offset <= 15;
    }
    case 'numeric':
      return /^-?(Infinity|\d{1,30}(\.\d{1,30})?)$/.test(text);
    case 'float8':
    case 'float4': {
      if (!/^-?\d+(\.\d+)?(e[+-]?\d{1,3})?$/.test(text)) return false;
      const n = Math.abs(Number(text));
      const [min, max] = SORT_TYPE[key] === 'float8' ? [2.3e-308, 1.7e308] : [1.2e-38, 3.4e38];
      return n === 0 || (n >= min && n <= max);
    }
  }
}

/**
 * The sort of a search as SQL: the expression, its type (to read a cursor's value back), and its
 * direction. Values a listing lacks sort last whichever the direction.
 */
export function sortSql(s: ListingSearch): Sql & { type: string; desc: boolean } {
  const { key, reverse } = s.sort;
  const type = SORT_TYPE[key];
  const lastWhenMissing = (column: string, desc: boolean) => ({ sql: `coalesce(${column}, '${desc ? '-' : ''}Infinity'::numeric)`, bindings: [], type, desc });
  switch (key) {
    case 'newest':
      return { sql: 'mod_time', bindings: [], type, desc: !reverse };
    case 'updated':
      return { sql: 'updated_at', bindings: [], type, desc: !reverse };
    case 'price':
      return lastWhenMissing('price_amount', reverse);
    case 'bedrooms':
      return lastWhenMissing('bedrooms', reverse);
    case 'landArea':
      return lastWhenMissing('land_area', reverse);
    case 'distance': {
      const d = distanceSql(s.near!.lat, s.near!.lng);
      return { ...d, type, desc: reverse };
    }
    case 'relevance':
      return { sql: 'ts_rank_cd(search_tsv, ?::tsquery)', bindings: [s.tsquery ?? ''], type, desc: !reverse };
    case 'nextOpenHome':
      return { sql: `coalesce(${NEXT_OPEN_HOME_SQL}, '${reverse ? '-' : ''}infinity'::timestamptz)`, bindings: [], type, desc: reverse };
  }
}

/** What a search has besides its filters (planStable). */
const PAGING: ReadonlySet<string> = new Set(['sort', 'limit', 'offset', 'after', 'facets']);

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
 * sale mode), an office, localities or postcodes (NEWEST_INDEXED), by price within a sale mode, or
 * by last change, with no other filter. Anything else is planned for its values: how many listings a filter keeps decides
 * whether to walk the sort's index and skip what the filter drops, or to read the filter's matches
 * and sort them (a price sort over a country of 70% of the listings or of 5%), and so do ranges,
 * keywords, map areas, statuses and agents. New filters are not plan-stable until added here.
 */
export function planStable(s: ListingSearch): boolean {
  if (s.offset !== 0) return false;
  const filters = new Set(Object.keys(s).filter((name) => s[name as keyof ListingSearch] !== undefined && !PAGING.has(name)));
  if (s.saleMode === 'both') filters.delete('saleMode');
  switch (s.sort.key) {
    case 'newest': {
      const category = filters.delete('category');
      const leading = ['country', 'saleMode', 'office', 'locality', 'postcode'].filter((name) => filters.has(name));
      const index = NEWEST_INDEXED.get(leading.join(','));
      return filters.size === leading.length && index !== undefined && (!category || index.carriesCategory);
    }
    case 'price':
      return filters.size === 1 && filters.has('saleMode');
    case 'updated':
      return filters.size === 0;
    default:
      return false;
  }
}

/**
 * The page query of a search: the public record as JSON text, its sort value and key, in sort
 * order from its offset or after its cursor. cappedPage runs it. Ties go by listing key, ascending
 * in a sort's natural order and descending when it is reversed, so that `-x` is exactly `x` read
 * backwards (missing values aside) and one index serves both. The page's keys are found first
 * and only they are joined back for their records, so a search that sorts thousands of matches
 * makes 25 records' JSON, not thousands.
 */
export function searchPage(db: Knex, s: ListingSearch, recordJson: string): { page: Knex.QueryBuilder; order: string } {
  const sort = sortSql(s);
  const dir = sort.desc ? 'DESC' : 'ASC';
  const keyDir = s.sort.reverse ? 'DESC' : 'ASC';
  const order = `sort_value ${dir}, listing_key ${keyDir}`;
  const each = perValueScan(s);
  const keys = (each ? searchFilters(db, { ...s, [each.filter]: undefined }).whereRaw(`${each.column} = wanted.value`) : searchFilters(db, s))
    .select(db.raw(`${sort.sql} AS sort_value`, sort.bindings), 'listing_key')
    .orderByRaw(`${sort.sql} ${dir}, listing_key ${keyDir}`, sort.bindings);
  if (s.after) {
    const op = sort.desc ? '<' : '>';
    // The first condition bounds an index scan on the sort; the second steps past the tie.
    keys.whereRaw(`${sort.sql} ${op}= ?::${sort.type}`, [...sort.bindings, s.after.value]);
    keys.whereRaw(`(${sort.sql} ${op} ?::${sort.type} OR listing_key ${s.sort.reverse ? '<' : '>'} ?)`, [...sort.bindings, s.after.value, s.after.key]);
  }
  const offset = s.after ? 0 : s.offset;
  let pageKeys: Knex.QueryBuilder;
  if (each) {
    // Each value's first offset + limit + 1 in order, then the page from their union.
    keys.limit(offset + s.limit + 1, LITERAL);
    pageKeys = db
      .from(db.raw('unnest(?::text[]) AS wanted(value) CROSS JOIN LATERAL (?) AS per_value', [each.values, keys]))
      .select('sort_value', 'listing_key')
      .orderByRaw(order)
      .limit(s.limit + 1, LITERAL)
      .offset(offset, LITERAL);
  } else {
    pageKeys = keys.limit(s.limit + 1, LITERAL).offset(offset, LITERAL);
  }
  const page = db
    .from(pageKeys.as('page_keys'))
    .join('listings', 'listings.listing_key', 'page_keys.listing_key')
    .select(db.raw(recordJson), 'page_keys.sort_value', 'page_keys.listing_key');
  return { page, order };
}

/**
 * Filters whose index leads with the filtered column and then follows the newest-first order
 * (listings_public_locality_idx, listings_public_postcode_idx, over public listings).
 */
const PER_VALUE_INDEXED = [
  { filter: 'locality', column: 'locality_key' },
  { filter: 'postcode', column: 'postcode_key' },
] as const;

/**
 * Whether a newest-first search over public listings is read one filter value at a time: with
 * several localities (or postcodes), `= ANY(...)` makes PostgreSQL read every match of every
 * value and sort them for the first page (all of a city's listings, for a search over two
 * cities); read value by value, each index range gives its first offset + limit + 1 in order,
 * and only those are merged. With one value the index gives the order directly.
 */
function perValueScan(s: ListingSearch): { filter: 'locality' | 'postcode'; column: string; values: string[] } | null {
  if (s.sort.key !== 'newest' || s.status) return null;
  for (const { filter, column } of PER_VALUE_INDEXED) {
    const values = s[filter];
    if (values && values.length > 1) return { filter, column, values };
  }
  return null;
}

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
