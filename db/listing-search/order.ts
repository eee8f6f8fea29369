import type { Knex } from 'knex';
import { LITERAL } from '../prepared-statements.js';
import { distanceSql, NEXT_OPEN_HOME_SQL, searchFilters } from './filters.js';
import { boundNearest, nearestBounded } from './nearest.js';
import { boundNewestInArea, newestInAreaBounded } from './newest-in-area.js';
import { RELEVANCE_CANDIDATES, rankedCandidates } from './relevance.js';
import type { ListingSearch, SortKey, Sql } from './search.js';

/** The order of a listing search, its cursor (a page's last sort value and key) and its page query. */

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

/**
 * The page query of a search: the public record as JSON text, its sort value and key, in sort
 * order from its offset or after its cursor. cappedPage runs it. Ties go by listing key, ascending
 * in a sort's natural order and descending when it is reversed, so that `-x` is exactly `x` read
 * backwards (missing values aside) and one index serves both. The page's keys are found first
 * and only they are joined back for their records, so a search that sorts thousands of matches
 * makes 25 records' JSON, not thousands. `crowded`: the search's map area holds more listings
 * than its total counts exactly (searchFilters). `newestBound`: a box alone holds at least
 * NEWEST_BOUND_FROM listings, so its newest-first page is read from a bound (newest-in-area.ts). A relevance search ranks only its candidates
 * (relevance.ts): at most relevanceCandidates listings of each of its two pools.
 */
export function searchPage(
  db: Knex,
  s: ListingSearch,
  recordJson: string,
  options: { crowded?: boolean; newestBound?: boolean; relevanceCandidates?: number } = {},
): { page: Knex.QueryBuilder; order: string } {
  const { crowded = false, newestBound = false, relevanceCandidates = RELEVANCE_CANDIDATES } = options;
  const sort = sortSql(s);
  const dir = sort.desc ? 'DESC' : 'ASC';
  const keyDir = s.sort.reverse ? 'DESC' : 'ASC';
  const order = `sort_value ${dir}, listing_key ${keyDir}`;
  const offset = s.after ? 0 : s.offset;
  if (s.sort.key === 'relevance') {
    // Ranked over a bounded set of candidates (relevance.ts), never over every match.
    const ranked = rankedCandidates(db, s, relevanceCandidates)
      .limit(s.limit + 1, LITERAL)
      .offset(offset, LITERAL);
    return { page: recordsOf(db, ranked, recordJson), order };
  }
  const each = perValueScan(s);
  const keys = (each ? searchFilters(db, { ...s, [each.filter]: undefined }).whereRaw(`${each.column} = wanted.value`) : searchFilters(db, s, crowded))
    .select(db.raw(`${sort.sql} AS sort_value`, sort.bindings), 'listing_key')
    .orderByRaw(`${sort.sql} ${dir}, listing_key ${keyDir}`, sort.bindings);
  const afterCursor = (q: Knex.QueryBuilder) => {
    if (!s.after) return;
    const op = sort.desc ? '<' : '>';
    // The first condition bounds an index scan on the sort; the second steps past the tie.
    q.whereRaw(`${sort.sql} ${op}= ?::${sort.type}`, [...sort.bindings, s.after.value]);
    q.whereRaw(`(${sort.sql} ${op} ?::${sort.type} OR listing_key ${s.sort.reverse ? '<' : '>'} ?)`, [...sort.bindings, s.after.value, s.after.key]);
  };
  afterCursor(keys);
  if (nearestBounded(s)) boundNearest(db, s, keys, offset + s.limit + 1, afterCursor);
  else if (newestBound && newestInAreaBounded(s)) boundNewestInArea(keys, s, offset + s.limit + 1);
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
  return { page: recordsOf(db, pageKeys, recordJson), order };
}

/** A page's keys (sort_value, listing_key) joined back to their records, for the page's JSON. */
function recordsOf(db: Knex, pageKeys: Knex.QueryBuilder, recordJson: string): Knex.QueryBuilder {
  return db
    .from(pageKeys.as('page_keys'))
    .join('listings', 'listings.listing_key', 'page_keys.listing_key')
    .select(db.raw(recordJson), 'page_keys.sort_value', 'page_keys.listing_key');
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
