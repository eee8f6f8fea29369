import type { Knex } from 'knex';
import type { ReadableStatus } from '../../pipeline/listing-statuses.js';

/**
 * What a listing search is, checked and normalised; the SQL made of it is in this folder: its
 * filters (filters.ts), its order, cursor and page (order.ts), its facets (facets.ts) and whether
 * one plan serves it (plan.ts).
 */

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

/** A piece of SQL and its bindings. */
export type Sql = { sql: string; bindings: Knex.Value[] };

/** One end of an open-home window: a day (in each listing's own zone) or an instant. */
export type OpenBound = { date: string } | { instant: string };
