import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { listingKey } from '../pipeline/listing-key.js';
import { publicRecordSql } from '../pipeline/public-view.js';
import { likePattern } from './row-values.js';

export interface ListingSearch {
  country?: string;
  office?: string;
  category?: string;
  saleMode: 'sale' | 'rent' | 'both';
  minPrice?: number;
  maxPrice?: number;
  minBedrooms?: number;
  limit: number;
  offset: number;
}

/**
 * A record as the public sees it (the agent's display choices honoured, bookkeeping left out), as
 * JSON text straight from PostgreSQL (no parse and re-serialise).
 */
const RECORD_JSON = `${publicRecordSql()}::text AS json`;

/**
 * `total` for a filter set (listings, agents or offices) is counted at most once per TOTAL_TTL_MS
 * per process, and concurrent requests share one count: an exact count over a million public
 * listings costs tens of milliseconds, the page itself about one. Once a count is older than that,
 * the next request still answers with it and starts a new count in the background, so no request
 * but a filter set's very first waits for a count. Totals may therefore lag writes by up to that
 * long plus one count; the pages never do.
 */
export const TOTAL_TTL_MS = 30_000;

export interface PublicReads {
  searchListings(search: ListingSearch): Promise<{ total: number; listingsJson: string[] }>;
  /** The stored record when it may be shown: public, or sold/leased (not hidden, not archived). */
  getListingJson(office: string, uniqueId: string): Promise<string | null>;
  listAgents(query: DirectoryQuery): Promise<{ total: number; agents: Record<string, unknown>[] }>;
  listOffices(query: DirectoryQuery): Promise<{ total: number; offices: Record<string, unknown>[] }>;
  countries(): Promise<{ code: string; listingCount: number }[]>;
}

export interface DirectoryQuery {
  country?: string;
  office?: string;
  query?: string;
  limit: number;
  offset: number;
}

function listingFilters(db: Knex, s: ListingSearch): Knex.QueryBuilder {
  const q = db('listings').where('is_public', true);
  if (s.country) q.where('country', s.country);
  if (s.office) q.where('office', s.office);
  if (s.category) q.where('category', s.category);
  if (s.saleMode !== 'both') q.where('sale_mode', s.saleMode);
  if (s.minPrice !== undefined) q.where('price_amount', '>=', s.minPrice);
  if (s.maxPrice !== undefined) q.where('price_amount', '<=', s.maxPrice);
  if (s.minBedrooms !== undefined) q.where('bedrooms', '>=', s.minBedrooms);
  return q;
}

function directoryFilters(db: Knex, table: 'directory_agents' | 'directory_offices', d: DirectoryQuery): Knex.QueryBuilder {
  const q = db(table);
  if (d.country) q.whereRaw('? = ANY(countries)', [d.country]);
  if (d.office) q.where('office', d.office);
  if (d.query) q.whereRaw("search_text LIKE ? ESCAPE '\\'", [likePattern(d.query)]);
  return q;
}

/**
 * What a total is cached under: what is counted and the filters given, by name (the order the
 * query string gave them in does not matter), paging left out.
 */
function totalKey(what: string, filters: object): string {
  const given = Object.entries(filters).filter(([name, value]) => value !== undefined && name !== 'limit' && name !== 'offset');
  return JSON.stringify([what, given.sort(([a], [b]) => (a < b ? -1 : 1))]);
}

/** Data access for the public read routes (DESIGN.md §3, §6). */
export function createPublicReads(db: Knex, options: { totalTtlMs?: number } = {}): PublicReads {
  /** Totals by what is counted and the filters (paging excluded). */
  const totals = new LRUCache<string, number, () => Knex.QueryBuilder>({
    max: 10_000,
    ttl: options.totalTtlMs ?? TOTAL_TTL_MS,
    // Stale-while-revalidate: an expired count is served while its replacement is counted, and
    // kept if that count fails (the page query reports an unavailable database anyway).
    allowStale: true,
    allowStaleOnFetchRejection: true,
    fetchMethod: async (_key, _stale, { context: filtered }) => {
      const [{ n }] = await filtered().count({ n: '*' });
      return Number(n);
    },
  });
  const total = async (what: string, filters: { limit: number; offset: number }, filtered: () => Knex.QueryBuilder) =>
    (await totals.fetch(totalKey(what, filters), { context: filtered })) ?? 0;

  return {
    async searchListings(search) {
      const [rows, n] = await Promise.all([
        listingFilters(db, search)
          .select(db.raw(RECORD_JSON))
          .orderBy([
            { column: 'mod_time', order: 'desc' },
            { column: 'listing_key', order: 'asc' },
          ])
          .limit(search.limit)
          .offset(search.offset),
        total('listings', search, () => listingFilters(db, search)),
      ]);
      return { total: n, listingsJson: rows.map((r: { json: string }) => r.json) };
    },

    async getListingJson(office, uniqueId) {
      const row = await db('listings')
        .where({ listing_key: listingKey(office, uniqueId), hidden: false })
        .whereIn('status', ['active', 'under_offer', 'sold', 'leased'])
        .first(db.raw(RECORD_JSON));
      return row ? (row.json as string) : null;
    },

    async listAgents(query) {
      const [rows, n] = await Promise.all([
        directoryFilters(db, 'directory_agents', query)
          .select('office', 'name', 'email', 'phones', 'listing_count', 'countries', 'localities')
          .orderBy([{ column: 'listing_count', order: 'desc' }, { column: 'office' }, { column: 'agent_key' }])
          .limit(query.limit)
          .offset(query.offset),
        total('agents', query, () => directoryFilters(db, 'directory_agents', query)),
      ]);
      return {
        total: n,
        agents: rows.map((r: any) => ({
          office: r.office,
          name: r.name,
          email: r.email,
          phones: r.phones,
          listingCount: r.listing_count,
          countries: r.countries,
          localities: r.localities,
        })),
      };
    },

    async listOffices(query) {
      const [rows, n] = await Promise.all([
        directoryFilters(db, 'directory_offices', query)
          .select('office', 'listing_count', 'countries', 'localities', 'lat', 'lng')
          .orderBy([{ column: 'listing_count', order: 'desc' }, { column: 'office' }])
          .limit(query.limit)
          .offset(query.offset),
        total('offices', query, () => directoryFilters(db, 'directory_offices', query)),
      ]);
      return {
        total: n,
        offices: rows.map((r: any) => ({
          office: r.office,
          listingCount: r.listing_count,
          countries: r.countries,
          localities: r.localities,
          location: r.lat === null ? null : { lat: r.lat, lng: r.lng },
        })),
      };
    },

    async countries() {
      const { rows } = await db.raw(
        `SELECT key AS code, sum(value::int)::int AS "listingCount" FROM directory_offices, jsonb_each_text(country_counts)
         GROUP BY key ORDER BY 2 DESC, 1`,
      );
      return rows;
    },
  };
}
