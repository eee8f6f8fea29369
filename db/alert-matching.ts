import type { Knex } from 'knex';
import { ON_MARKET_STATUSES } from '../pipeline/listing-statuses.js';
import type { LoggedChange } from './change-log.js';
import { circleBox, greatCircleKmSql } from './listing-search/filters.js';
import type { ListingSearch } from './listing-search/search.js';

/**
 * Saved searches matched against changed listings (docs/alerts.md, Matching). A saved search is
 * kept as columns the matcher compares, each meaning what the same parameter means to
 * GET /v1/listings (db/listing-search/filters.ts, searchFilters: the same generated listing columns, the
 * same public price, the same keyword query), and as `anchors`: place keys of which every listing
 * the search can match has at least one. A changed listing's own keys find its candidate searches
 * through a GIN index, so a batch of changes reads the searches about those places, never every
 * search; the columns then decide.
 */

/** Why a change is worth an alert. */
export type AlertReason = 'new' | 'price_drop' | 'back_on_market';

const ON_MARKET: ReadonlySet<string> = new Set(ON_MARKET_STATUSES);

/** A price as the change log keeps it: the public amount, its currency and a rent's period. */
type LoggedPrice = { amount?: unknown; currency?: unknown; period?: unknown } | null;

/** Whether a public price went down (same currency and period, both shown). */
function priceDropped(from: LoggedPrice, to: LoggedPrice): boolean {
  if (!from || !to || typeof from.amount !== 'number' || typeof to.amount !== 'number') return false;
  return from.currency === to.currency && from.period === to.period && to.amount < from.amount;
}

/**
 * The alert a change log row is worth, if any: a listing published for the first time, a public
 * price going down, or a listing coming back on the market (from withdrawn, sold, off the market,
 * hidden or withheld). Whether the listing is public now is decided against its row when matching.
 */
export function alertReasonOf(change: LoggedChange): AlertReason | null {
  if (change.resource !== 'Property') return null;
  if (change.kind === 'published') return 'new';
  if (change.kind === 'price_changed') return priceDropped(change.oldPrice, change.newPrice) ? 'price_drop' : null;
  if ((change.kind === 'status_changed' || change.kind === 'shown') && change.newStatus !== null && ON_MARKET.has(change.newStatus)) {
    return !change.publicBefore || change.oldStatus === null || !ON_MARKET.has(change.oldStatus) ? 'back_on_market' : null;
  }
  return null;
}

/** A saved search as the columns of alert_subscriptions. */
export interface SavedSearchColumns {
  anchors: string[];
  country: string | null;
  office: string | null;
  categories: string[] | null;
  sub_categories: string[] | null;
  localities: string[] | null;
  regions: string[] | null;
  postcodes: string[] | null;
  sale_mode: string;
  min_price: number | null;
  max_price: number | null;
  min_bedrooms: number | null;
  max_bedrooms: number | null;
  min_bathrooms: number | null;
  min_car_spaces: number | null;
  min_land_area: number | null;
  max_land_area: number | null;
  q: string | null;
  tsquery: string | null;
  box_min_lng: number | null;
  box_min_lat: number | null;
  box_max_lng: number | null;
  box_max_lat: number | null;
  near_lat: number | null;
  near_lng: number | null;
  radius_km: number | null;
}

/** Most grid cells a map area is indexed by; a wider area falls back to a coarser key. */
const MAX_CELLS = 400;

/** The grid cells (tenths of a degree: 'g:', whole degrees: 'G:') a box covers, or null when more than MAX_CELLS. */
function cellsOf([minLng, minLat, maxLng, maxLat]: [number, number, number, number], prefix: 'g' | 'G', scale: number): string[] | null {
  const lngRanges: [number, number][] =
    minLng <= maxLng
      ? [[minLng, maxLng]]
      : [
          [minLng, 180],
          [-180, maxLng],
        ];
  const rows = Math.floor(maxLat * scale) - Math.floor(minLat * scale) + 1;
  const columns = lngRanges.reduce((n, [a, b]) => n + Math.floor(b * scale) - Math.floor(a * scale) + 1, 0);
  if (rows * columns > MAX_CELLS) return null;
  const cells: string[] = [];
  for (let y = Math.floor(minLat * scale); y <= Math.floor(maxLat * scale); y += 1) {
    for (const [a, b] of lngRanges) for (let x = Math.floor(a * scale); x <= Math.floor(b * scale); x += 1) cells.push(`${prefix}:${y}:${x}`);
  }
  return cells;
}

/**
 * The place keys a search is found by: its most selective place filter (localities, postcodes, its
 * map area as grid cells, its office, regions, its country), else '*' (every listing has it). Every
 * listing the search matches has one of them (listingAnchorsSql), since each is implied by a
 * filter the listing must pass.
 */
export function searchAnchors(s: ListingSearch): string[] {
  if (s.locality) return s.locality.map((v) => `l:${v}`);
  if (s.postcode) return s.postcode.map((v) => `p:${v}`);
  const box = s.bbox ?? (s.near ? circleBox(s.near.lat, s.near.lng, s.near.radiusKm) : undefined);
  const cells = box ? (cellsOf(box, 'g', 10) ?? cellsOf(box, 'G', 1)) : null;
  if (cells) return cells;
  if (s.office) return [`o:${s.office}`];
  if (s.region) return s.region.map((v) => `r:${v}`);
  if (s.country) return [`c:${s.country}`];
  return ['*'];
}

/** A listing row's place keys (alias l), in the forms searchAnchors gives. */
export const LISTING_ANCHORS_SQL = `array_remove(ARRAY['*', 'c:' || l.country, 'o:' || l.office, 'r:' || l.region_key, 'l:' || l.locality_key, 'p:' || l.postcode_key,
    CASE WHEN l.geo IS NOT NULL THEN 'g:' || floor(l.geo[1] * 10)::int || ':' || floor(l.geo[0] * 10)::int END,
    CASE WHEN l.geo IS NOT NULL THEN 'G:' || floor(l.geo[1])::int || ':' || floor(l.geo[0])::int END], NULL)`;

/** A saved search's columns from the search a query string makes (q already resolved to tsquery). */
export function savedSearchColumns(s: ListingSearch): SavedSearchColumns {
  if (s.q !== undefined && s.tsquery === undefined) throw new Error('keywordQuery must resolve q before a search is saved');
  return {
    anchors: searchAnchors(s),
    country: s.country ?? null,
    office: s.office ?? null,
    categories: s.category ?? null,
    sub_categories: s.subCategory ?? null,
    localities: s.locality ?? null,
    regions: s.region ?? null,
    postcodes: s.postcode ?? null,
    sale_mode: s.saleMode,
    min_price: s.minPrice ?? null,
    max_price: s.maxPrice ?? null,
    min_bedrooms: s.minBedrooms ?? null,
    max_bedrooms: s.maxBedrooms ?? null,
    min_bathrooms: s.minBathrooms ?? null,
    min_car_spaces: s.minCarSpaces ?? null,
    min_land_area: s.minLandArea ?? null,
    max_land_area: s.maxLandArea ?? null,
    q: s.q ?? null,
    tsquery: s.tsquery ?? null,
    box_min_lng: s.bbox?.[0] ?? null,
    box_min_lat: s.bbox?.[1] ?? null,
    box_max_lng: s.bbox?.[2] ?? null,
    box_max_lat: s.bbox?.[3] ?? null,
    near_lat: s.near?.lat ?? null,
    near_lng: s.near?.lng ?? null,
    radius_km: s.near?.radiusKm ?? null,
  };
}

/** Whether listing l (a listings row) passes saved search s (an alert_subscriptions row): searchFilters' rules, column by column. */
export const SEARCH_MATCHES_SQL = `(s.country IS NULL OR l.country = s.country)
  AND (s.office IS NULL OR l.office = s.office)
  AND (s.categories IS NULL OR l.category = ANY(s.categories))
  AND (s.sub_categories IS NULL OR l.sub_category_key = ANY(s.sub_categories))
  AND (s.localities IS NULL OR l.locality_key = ANY(s.localities))
  AND (s.regions IS NULL OR l.region_key = ANY(s.regions))
  AND (s.postcodes IS NULL OR l.postcode_key = ANY(s.postcodes))
  AND (s.sale_mode = 'both' OR l.sale_mode = s.sale_mode)
  AND (s.min_price IS NULL OR l.price_amount >= s.min_price)
  AND (s.max_price IS NULL OR l.price_amount <= s.max_price)
  AND (s.min_bedrooms IS NULL OR l.bedrooms >= s.min_bedrooms)
  AND (s.max_bedrooms IS NULL OR l.bedrooms <= s.max_bedrooms)
  AND (s.min_bathrooms IS NULL OR l.bathrooms >= s.min_bathrooms)
  AND (s.min_car_spaces IS NULL OR l.car_spaces >= s.min_car_spaces)
  AND (s.min_land_area IS NULL OR l.land_area >= s.min_land_area)
  AND (s.max_land_area IS NULL OR l.land_area <= s.max_land_area)
  AND (s.tsquery IS NULL OR (s.tsquery <> '' AND l.search_tsv @@ s.tsquery::tsquery))
  AND (s.box_min_lng IS NULL OR (l.geo[1] BETWEEN s.box_min_lat AND s.box_max_lat
       AND CASE WHEN s.box_min_lng <= s.box_max_lng THEN l.geo[0] BETWEEN s.box_min_lng AND s.box_max_lng
                ELSE l.geo[0] >= s.box_min_lng OR l.geo[0] <= s.box_max_lng END))
  AND (s.near_lat IS NULL OR ${greatCircleKmSql('s.near_lat', 's.near_lng').replaceAll('geo[', 'l.geo[')} <= s.radius_km)`;

/** A change worth an alert. */
export interface AlertChange {
  seq: number;
  listingKey: string;
  reason: AlertReason;
  /** When the change log numbered it: an alert confirmed after it does not hear of it. */
  at: Date;
}

/** The columns of a listing (l) and of a saved search (s) that SEARCH_MATCHES_SQL compares. */
const columnsOf = (alias: 'l' | 's') => [...new Set([...SEARCH_MATCHES_SQL.matchAll(new RegExp(`\\b${alias}\\.(\\w+)`, 'g'))].map((m) => m[1]))];

/**
 * The statement that records a batch's matches (matchChanges runs it; bench/alerts explains it).
 * - l: each changed listing as it is now (on the market and shown, by its public form), with its
 *   place keys (LISTING_ANCHORS_SQL);
 * - lx: each of them once per place key, per sale mode (its own and 'both') and per category (its
 *   own and '*'): the forms a search that can match it is filed under;
 * - s: for each distinct place key of the batch, the confirmed searches anchored on it, found
 *   through the anchors GIN index one key at a time (a GIN scan for many keys at once checks every
 *   key against every candidate, and a scan per listing reads the searches of a state or of the
 *   country again for each listing), once per category they ask for ('*' for none);
 * - the two joined on (key, sale mode, category), an equality the planner hashes or merges: a
 *   listing meets only the searches about its places, for its sale mode and category. Then
 *   SEARCH_MATCHES_SQL decides, the sale mode and category included, so the keys only narrow the
 *   candidates and what matches is exactly the searches the listing passes. A search found under
 *   two of a listing's keys (none is: a search's anchors are of one kind, a listing has one key of
 *   each) would be one row by ON CONFLICT.
 * The matches go in by subscription, so the primary key's index is visited a subscription's pages
 * at a time (8% less CPU). alert_matches has no foreign key to the subscriptions: its check was a
 * fifth of this statement's time (db/alert-subscriptions.ts deletes a subscription's matches).
 */
export function matchChangesStatement(changes: AlertChange[]): { sql: string; bindings: Knex.Value[] } {
  const listing = columnsOf('l').filter((c) => c !== 'listing_key');
  const search = columnsOf('s').filter((c) => c !== 'id');
  return {
    sql: `WITH l AS MATERIALIZED (
       SELECT c.seq, c.reason, c.at, l.listing_key, ${listing.map((c) => `l.${c}`).join(', ')}, ${LISTING_ANCHORS_SQL} AS keys
         FROM unnest(?::text[], ?::bigint[], ?::text[], ?::timestamptz[]) AS c(listing_key, seq, reason, at)
         JOIN listings l ON l.listing_key = c.listing_key AND l.is_public
        -- Evaluated once: with no confirmed saved search there is nothing to look up.
        WHERE EXISTS (SELECT 1 FROM alert_subscriptions WHERE status = 'confirmed')
     ), lx AS MATERIALIZED (
       SELECT l.*, k.key, m.mode, g.cat
         FROM l, unnest(l.keys) AS k(key), unnest(ARRAY[l.sale_mode, 'both']) AS m(mode), unnest(ARRAY[l.category, '*']) AS g(cat)
     ), s AS MATERIALIZED (
       SELECT k.key, g.cat, s.id, s.confirmed_at, ${search.map((c) => `s.${c}`).join(', ')}
         FROM (SELECT DISTINCT key FROM lx) AS k
         JOIN alert_subscriptions s ON s.status = 'confirmed' AND s.anchors && ARRAY[k.key]
         CROSS JOIN LATERAL unnest(coalesce(s.categories, '{*}')) AS g(cat)
     )
     INSERT INTO alert_matches (subscription_id, seq, listing_key, reason)
     SELECT s.id, l.seq, l.listing_key, l.reason
       FROM lx AS l JOIN s ON s.key = l.key AND s.sale_mode = l.mode AND s.cat = l.cat
      WHERE s.confirmed_at <= l.at AND ${SEARCH_MATCHES_SQL}
      ORDER BY s.id
     ON CONFLICT DO NOTHING`,
    bindings: [changes.map((c) => c.listingKey), changes.map((c) => c.seq), changes.map((c) => c.reason), changes.map((c) => c.at.toISOString())],
  };
}

/**
 * Records which confirmed saved searches the changed listings match, as they are now (on the
 * market and shown, by their public form), one row per search and change: a change already
 * recorded for a search is not recorded again, and a change from before a search was confirmed
 * is not its business (a matcher that fell behind does not mail old news to a new subscriber).
 * Returns how many matches it recorded.
 */
export async function matchChanges(trx: Knex.Transaction | Knex, changes: AlertChange[]): Promise<number> {
  if (changes.length === 0) return 0;
  const { sql, bindings } = matchChangesStatement(changes);
  const run = async (t: Knex.Transaction) => {
    // A batch's estimates (unnest, a GIN lookup per key) make a cost past JIT's thresholds; its
    // compilation then takes seconds, longer than the statement's work (bench/alerts).
    await t.raw('SET LOCAL jit = off');
    return ((await t.raw(sql, bindings)) as { rowCount: number | null }).rowCount ?? 0;
  };
  return 'isTransaction' in trx && trx.isTransaction ? run(trx as Knex.Transaction) : trx.transaction(run);
}
