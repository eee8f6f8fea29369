import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { listingKey } from '../pipeline/listing-key.js';
import { READABLE_STATUSES } from '../pipeline/listing-statuses.js';
import { publicRecordSql } from '../pipeline/public-view.js';
import { type CappedPage, cappedPage, PUBLIC_PAGE_MAX_BYTES } from './capped-page.js';
import { type CalendarEvent, calendarEvents } from './listing-calendars.js';
import { type HistoryPage, listingHistory } from './listing-history.js';
import { searchFacets } from './listing-search/facets.js';
import { keywordQuery, searchFilters } from './listing-search/filters.js';
import { nearestBounded } from './listing-search/nearest.js';
import { NEWEST_BOUND_FROM, newestInAreaBounded } from './listing-search/newest-in-area.js';
import { searchPage } from './listing-search/order.js';
import { planStable } from './listing-search/plan.js';
import type { FacetName, ListingSearch } from './listing-search/search.js';
import { isStatementCancelled } from './pg-errors.js';
import { PREPARE } from './prepared-statements.js';
import { type CostlyFamily, readShares } from './read-shares.js';
import { likePattern } from './row-values.js';

/**
 * A record as the public sees it (the agent's display choices honoured, bookkeeping left out), as
 * JSON text straight from PostgreSQL (no parse and re-serialise).
 */
const RECORD_JSON = `${publicRecordSql('listings')}::text AS json`;

/**
 * `total` for a filter set (listings, agents or offices) is counted at most once per TOTAL_TTL_MS
 * per process, and concurrent requests share one count: an exact count over a million public
 * listings costs tens of milliseconds, the page itself about one. Once a count is older than that,
 * the next request still answers with it and starts a new count in the background, so no request
 * but a filter set's very first waits for a count. Totals may therefore lag writes by up to that
 * long plus one count; the pages never do. A count that does not finish (past the read pool's
 * statement timeout, DB_READ_TIMEOUT_MS, or failed) is never a number: the total is null, and that
 * outcome is kept as a count is, so a count that cannot finish is tried again once per
 * TOTAL_TTL_MS rather than holding a read connection for every request. Facets alike.
 */
export const TOTAL_TTL_MS = 30_000;

/**
 * A listing search's total is counted exactly up to this many matches (SEARCH_EXACT_TOTAL_MAX);
 * past it the count stops, and the total is this bound with totalIsLowerBound (as Elasticsearch's
 * track_total_hits does): a search matching a whole city costs a bounded count, never one of every
 * match, and no page waits for a full count.
 */
export const EXACT_TOTAL_MAX = 10_000;

/** A page of records as JSON text: the total, the records, and where the next page starts (null: none). */
export interface JsonPage {
  /** Every match, counted exactly; null when the count did not finish (never a guess). */
  total: number | null;
  json: string[];
  nextOffset: number | null;
}

/** A page of a listing search: also the last record's position (for the next cursor) and the facets asked for. */
export interface ListingJsonPage extends JsonPage {
  /** The total is a lower bound: more matched than were counted (at most SEARCH_EXACT_TOTAL_MAX are). */
  totalIsLowerBound: boolean;
  /** The last record's sort value (as text) and key, when more records follow. */
  after: { value: string; key: string } | null;
  /** The facets asked for; null when they could not be counted. */
  facets?: Facets | null;
}

/** Counts of matches by value, per facet. */
export type Facets = Record<string, Record<string, number>>;

/** Why a listing is not shown (GET /v1/listings/{office}/{uniqueId} answers 404 either way). */
export type ListingAbsence = 'unknown' | 'withdrawn' | 'off_market' | 'archived';

export interface PublicReads {
  searchListings(search: ListingSearch): Promise<ListingJsonPage>;
  /** The stored record when it may be shown: public, or sold/leased (not hidden by an operator or withheld by its source, not archived). */
  getListingJson(office: string, uniqueId: string): Promise<string | null>;
  /**
   * Why a listing no public read shows is absent: withdrawn, off_market or archived for one that
   * was listed; unknown for one never stored, hidden by an operator or withheld by its source.
   */
  listingAbsence(office: string, uniqueId: string): Promise<ListingAbsence>;
  /** A public listing's history, newest first (db/listing-history.ts); null when the listing is not public. */
  listingHistory(office: string, uniqueId: string, page: { limit: number; before?: string }): Promise<HistoryPage | null>;
  /** One agent of the directory by id, as JSON text; null when none has it. */
  getAgentJson(id: string): Promise<string | null>;
  listAgents(query: DirectoryQuery): Promise<JsonPage>;
  listOffices(query: DirectoryQuery): Promise<JsonPage>;
  countries(): Promise<{ code: string; listingCount: number }[]>;
  /** The open homes and auctions to come of a public listing (null: not public), or of an office's public listings (db/listing-calendars.ts). */
  calendarEvents(office: string, uniqueId?: string): Promise<CalendarEvent[] | null>;
}

export interface DirectoryQuery {
  country?: string;
  office?: string;
  query?: string;
  limit: number;
  offset: number;
}

function directoryFilters(db: Knex, table: 'directory_agents' | 'directory_offices', d: DirectoryQuery): Knex.QueryBuilder {
  const q = db(table);
  if (d.country) q.whereRaw('? = ANY(countries)', [d.country]);
  if (d.office) q.where('office', d.office);
  if (d.query) q.whereRaw("search_text LIKE ? ESCAPE '\\'", [likePattern(d.query)]);
  return q;
}

/** The most localities an agent or office answer lists (alphabetically first), so no row can grow without bound. */
export const DIRECTORY_LOCALITIES_SHOWN = 200;

const AGENT_JSON = `json_build_object('id', agent_id, 'office', office, 'name', name, 'email', email, 'phones', phones, 'listingCount', listing_count,
  'countries', countries, 'localities', localities[1:${DIRECTORY_LOCALITIES_SHOWN}])::text AS json`;
const OFFICE_JSON = `json_build_object('office', office, 'name', name, 'phone', phone, 'logoUrl', logo_url, 'listingCount', listing_count, 'countries', countries,
  'localities', localities[1:${DIRECTORY_LOCALITIES_SHOWN}],
  'location', CASE WHEN lat IS NULL THEN NULL ELSE json_build_object('lat', lat, 'lng', lng) END)::text AS json`;

/** The answer's page from a capped page of records at `offset`. */
export const jsonPage = (total: number | null, page: CappedPage, offset: number): JsonPage => ({
  total,
  json: page.json,
  nextOffset: page.more ? offset + page.json.length : null,
});

/**
 * What a total is cached under: what is counted and the filters given, by name (the order the
 * query string gave them in does not matter), paging and order left out.
 */
const PAGING = new Set(['limit', 'offset', 'after', 'sort', 'facets']);
function totalKey(what: string, filters: object): string {
  const given = Object.entries(filters).filter(([name, value]) => value !== undefined && !PAGING.has(name));
  return JSON.stringify([what, given.sort(([a], [b]) => (a < b ? -1 : 1))]);
}

/** The costly family a search's page and total count against (its facet counts are always `facets`); null: a cheap one. */
function searchFamily(s: ListingSearch): CostlyFamily | null {
  if (s.q !== undefined) return 'keyword';
  if (s.bbox || s.near) return 'map';
  return null;
}

/**
 * The family a search's page counts against, given its total: that of the search (searchFamily),
 * except for a map area alone (plan-stable: a box or a circle and nothing else) whose page is
 * bounded, which is a cheap read. Nearest first by distance such a page reads about twice its
 * size (db/listing-search/nearest.ts), and so does a box of NEWEST_BOUND_FROM listings or more
 * newest first (`newestBound`, db/listing-search/newest-in-area.ts); another area newest first
 * reads and sorts its matches from the map index's entries, so it is bounded when its total is
 * exact (at most exactTotalMax matches).
 * An area holding more is walked newest first (searchFilters, crowded): a page of 25 reads about
 * 25 x (public listings / the area's), at most 2,500 entries at a million listings when the
 * area's listings are as new as the rest, but an area of only old listings reads far more, so that
 * page stays in its family, as does one whose count did not finish.
 */
function pageFamily(s: ListingSearch, total: { lowerBound: boolean } | null, newestBound: boolean): CostlyFamily | null {
  const family = searchFamily(s);
  if (family !== 'map' || !planStable(s)) return family;
  if (nearestBounded(s) || newestBound) return null;
  return total && !total.lowerBound ? null : family;
}

/**
 * Counts shared by the requests that ask for the same thing (by key), each made at most once per
 * `ttlMs` by the `count` the first asker passes: its value, or null when it did not finish. An
 * expired value is answered while it is counted again in the background.
 */
function sharedCounts<V extends {}>(ttlMs: number, max: number, onError: (err: Error) => void) {
  const cache = new LRUCache<string, { value: V | null }, () => Promise<V>>({
    max,
    ttl: ttlMs,
    // Stale-while-revalidate: an expired count is served while its replacement is counted.
    allowStale: true,
    fetchMethod: async (_key, _stale, { context: count }) => {
      try {
        return { value: await count() };
      } catch (err) {
        onError(err as Error);
        // Never 0, never the old figure: null. A count the database cancelled (past its statement
        // timeout) would be again, so that is kept like a count; any other failure (the database
        // away) is not kept, and the next request counts again.
        return isStatementCancelled(err) ? { value: null } : undefined;
      }
    },
  });
  return async (key: string, count: () => Promise<V>): Promise<V | null> => (await cache.fetch(key, { context: count }))?.value ?? null;
}

export interface PublicReadOptions {
  totalTtlMs?: number;
  pageMaxBytes?: number;
  /** Listing search totals are exact up to this many matches, and a lower bound past it. */
  exactTotalMax?: number;
  /** A relevance search ranks at most this many candidates of each pool (db/listing-search/relevance.ts). */
  relevanceCandidates?: number;
  /** Told of a total or facet count that did not finish (its answers say null meanwhile). */
  onCountError?: (err: Error, what: string) => void;
}

/**
 * What the public reads count and keep: totals (directory lists; a listing search's, exact up to
 * exactTotalMax and a lower bound past it), facet counts, each cached and shared by concurrent
 * askers (sharedCounts) and run within its family's share of the read pool; and the text search
 * query of each q lately asked.
 */
function cachedCounts(db: Knex, shares: ReturnType<typeof readShares>, options: PublicReadOptions) {
  const ttl = options.totalTtlMs ?? TOTAL_TTL_MS;
  /** Totals by what is counted and the filters (paging excluded), within the search family's share of the read pool. */
  const totals = sharedCounts<number>(ttl, 10_000, (err) => options.onCountError?.(err, 'total'));
  const total = (what: string, filters: object, filtered: () => Knex.QueryBuilder, family: CostlyFamily | null = null) =>
    totals(totalKey(what, filters), async () => {
      const [{ n }] = await shares.run(family, async () => filtered().count({ n: '*' }));
      return Number(n);
    });
  /** A listing search's total: exact up to exactTotalMax, that bound (a lower bound) past it. Cached and shared like totals. */
  const exactMax = options.exactTotalMax ?? EXACT_TOTAL_MAX;
  const listingTotals = sharedCounts<{ n: number; lowerBound: boolean }>(ttl, 10_000, (err) => options.onCountError?.(err, 'total'));
  const listingTotal = (search: ListingSearch, family: CostlyFamily | null) =>
    listingTotals(totalKey('listings', search), async () => {
      const [{ n }] = await shares.run(family, async () =>
        db
          .from(
            searchFilters(db, search)
              .select(db.raw('1'))
              .limit(exactMax + 1)
              .as('counted'),
          )
          .count({ n: '*' }),
      );
      return Number(n) > exactMax ? { n: exactMax, lowerBound: true } : { n: Number(n), lowerBound: false };
    });
  /**
   * The text search query of each q lately asked (keywordQuery's answer depends on q alone), so
   * that a repeated keyword search waits for the keyword share of the pool once (its page), not
   * twice: under many keyword searches at once each wait is a place in the same queue.
   */
  const tsqueries = new LRUCache<string, string>({ max: 1_000 });
  const tsqueryOf = async (q: string, family: CostlyFamily | null) => {
    const known = tsqueries.get(q);
    if (known !== undefined) return known;
    const text = await shares.run(family, () => keywordQuery(db, q));
    tsqueries.set(q, text);
    return text;
  };
  /** Facet counts, cached and shared like totals. */
  const facetCache = sharedCounts<Facets>(ttl, 2_000, (err) => options.onCountError?.(err, 'facets'));
  const facetCounts = (search: ListingSearch, facets: FacetName[]) =>
    facetCache(totalKey(`facets:${facets.join(',')}`, search), () => shares.run('facets', () => searchFacets(db, search, facets)));

  return { total, listingTotal, tsqueryOf, facetCounts };
}

/** A listing search's page, its total (or a lower bound of it) and its facets; its words are read once per q. */
async function searchListings(
  db: Knex,
  shares: ReturnType<typeof readShares>,
  counts: ReturnType<typeof cachedCounts>,
  limits: { maxBytes: number; relevanceCandidates?: number },
  asked: ListingSearch,
): Promise<ListingJsonPage> {
  const family = searchFamily(asked);
  const search = asked.q !== undefined && asked.tsquery === undefined ? { ...asked, tsquery: await counts.tsqueryOf(asked.q, family) } : asked;
  // A map area alone, newest first, learns first how many listings it holds (its total, mostly
  // cached): a page of a few is sorted from the map index; a box of many is read from a bound, a
  // circle of many walks the newest-first index.
  const known = family === 'map' && planStable(search) && !nearestBounded(search) ? await counts.listingTotal(search, family) : undefined;
  const newestBound = newestInAreaBounded(search) && known != null && (known.lowerBound || known.n >= NEWEST_BOUND_FROM);
  const { page, order } = searchPage(db, search, RECORD_JSON, {
    crowded: known?.lowerBound === true && !newestBound,
    newestBound,
    relevanceCandidates: limits.relevanceCandidates,
  });
  const [rows, n, facets] = await Promise.all([
    shares.run(pageFamily(search, known ?? null, newestBound), () =>
      cappedPage(db, page, order, search.limit, limits.maxBytes, ['sort_value', 'listing_key'], planStable(search)),
    ),
    known === undefined ? counts.listingTotal(search, family) : known,
    search.facets ? counts.facetCounts(search, search.facets) : undefined,
  ]);
  const after = rows.more && rows.last ? { value: rows.last.sort_value, key: rows.last.listing_key } : null;
  // After a cursor there is no offset to give: the cursor pages on.
  const paged = jsonPage(n?.n ?? null, rows, search.offset);
  return {
    ...paged,
    totalIsLowerBound: n?.lowerBound ?? false,
    nextOffset: search.after ? null : paged.nextOffset,
    after,
    ...(search.facets ? { facets } : {}),
  };
}

/** Data access for the public read routes (docs/architecture.md, The canonical listing and Reads). */
export function createPublicReads(db: Knex, options: PublicReadOptions = {}): PublicReads {
  const maxBytes = options.pageMaxBytes ?? PUBLIC_PAGE_MAX_BYTES;
  const shares = readShares(db);
  const counts = cachedCounts(db, shares, options);
  const { total } = counts;
  return {
    searchListings: (asked) => searchListings(db, shares, counts, { maxBytes, relevanceCandidates: options.relevanceCandidates }, asked),

    async getListingJson(office, uniqueId) {
      const row = await db('listings')
        .where({ listing_key: listingKey(office, uniqueId), is_shown: true })
        .whereIn('status', [...READABLE_STATUSES])
        .first(db.raw(RECORD_JSON))
        .options(PREPARE);
      return row ? (row.json as string) : null;
    },

    listingHistory: (office, uniqueId, page) => listingHistory(db, office, uniqueId, page),

    async listingAbsence(office, uniqueId) {
      const row = await db('listings')
        .where({ listing_key: listingKey(office, uniqueId) })
        .first('status', 'hidden', 'is_shown');
      if (!row || row.hidden || !row.is_shown) return 'unknown';
      return ['withdrawn', 'off_market', 'archived'].includes(row.status) ? row.status : 'unknown';
    },

    async getAgentJson(id) {
      const row = await db('directory_agents').where({ agent_id: id }).first(db.raw(AGENT_JSON));
      return row ? (row.json as string) : null;
    },

    async listAgents(query) {
      const page = directoryFilters(db, 'directory_agents', query)
        .select(db.raw(AGENT_JSON), 'listing_count', 'office', 'agent_key')
        .orderBy([{ column: 'listing_count', order: 'desc' }, { column: 'office' }, { column: 'agent_key' }])
        .offset(query.offset);
      const [rows, n] = await Promise.all([
        cappedPage(db, page, 'listing_count DESC, office, agent_key', query.limit, maxBytes),
        total('agents', query, () => directoryFilters(db, 'directory_agents', query)),
      ]);
      return jsonPage(n, rows, query.offset);
    },

    async listOffices(query) {
      const page = directoryFilters(db, 'directory_offices', query)
        .select(db.raw(OFFICE_JSON), 'listing_count', 'office')
        .orderBy([{ column: 'listing_count', order: 'desc' }, { column: 'office' }])
        .offset(query.offset);
      const [rows, n] = await Promise.all([
        cappedPage(db, page, 'listing_count DESC, office', query.limit, maxBytes),
        total('offices', query, () => directoryFilters(db, 'directory_offices', query)),
      ]);
      return jsonPage(n, rows, query.offset);
    },

    calendarEvents: (office, uniqueId) => calendarEvents(db, office, uniqueId),

    async countries() {
      const { rows } = await db.raw(
        `SELECT key AS code, sum(value::int)::int AS "listingCount" FROM directory_offices, jsonb_each_text(country_counts)
         GROUP BY key ORDER BY 2 DESC, 1`,
      );
      return rows;
    },
  };
}
