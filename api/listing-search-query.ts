import { hash } from 'node:crypto';
import { isSortValue } from '../db/listing-search/order.js';
import { FACET_NAMES, type FacetName, type ListingSearch, type OpenBound, type SearchStatus, type SortKey } from '../db/listing-search/search.js';
import { badRequest } from '../lib/errors.js';
import { listingSchema } from '../pipeline/listing-schema.js';
import { READABLE_STATUSES } from '../pipeline/listing-statuses.js';
import type { Category } from '../pipeline/types.js';
import { checkKeywords } from './keyword-limits.js';
import { assertValidQuery } from './validators.js';

/** The query string as the schema checks it: lists, points, the sort and the cursor still text. */
type RawSearch = Omit<
  ListingSearch,
  'category' | 'subCategory' | 'locality' | 'region' | 'postcode' | 'status' | 'bbox' | 'near' | 'sort' | 'facets' | 'after' | 'tsquery' | 'openFrom' | 'openTo'
> &
  Record<
    'category' | 'subCategory' | 'locality' | 'region' | 'postcode' | 'status' | 'bbox' | 'near' | 'facets' | 'cursor' | 'openFrom' | 'openTo',
    string | undefined
  > & {
    radiusKm: number;
    sort: string;
  };

const CATEGORIES: readonly Category[] = listingSchema.properties.category.enum;
/** The statuses a search may ask for, by their names in a query (camelCase: underOffer), read without case, _, - or spaces. */
const STATUS_NAMES = READABLE_STATUSES.map((status) => status.replace(/_(.)/g, (_m, c: string) => c.toUpperCase()));
const STATUSES: Record<string, SearchStatus> = Object.fromEntries(READABLE_STATUSES.map((status, i) => [STATUS_NAMES[i].toLowerCase(), status]));
/** Most values one list parameter takes. */
const MAX_VALUES = 20;

function values(name: string, text: string | undefined, normalise: (v: string) => string = (v) => v): string[] | undefined {
  if (text === undefined) return undefined;
  const list = [...new Set(text.split(',').map((v) => normalise(v.trim())))].filter(Boolean);
  if (list.length === 0) throw badRequest(`query.${name} names no value`);
  if (list.length > MAX_VALUES) throw badRequest(`query.${name} has ${list.length} values; at most ${MAX_VALUES}`);
  return list;
}

function numbers(name: string, text: string, count: number): number[] {
  const parts = text.split(',').map((p) => p.trim());
  const list = parts.map(Number);
  if (parts.length !== count || parts.some((p) => p === '') || list.some((n) => !Number.isFinite(n))) {
    throw badRequest(`query.${name} must be ${count} numbers separated by commas`);
  }
  return list;
}

function latitude(name: string, lat: number): number {
  if (lat < -90 || lat > 90) throw badRequest(`query.${name}: latitude ${lat} is outside -90..90`);
  return lat;
}
function longitude(name: string, lng: number): number {
  if (lng < -180 || lng > 180) throw badRequest(`query.${name}: longitude ${lng} is outside -180..180`);
  return lng;
}

/** An ISO 8601 date or time that is a real one (the schema checks its shape); as an ISO instant. */
function instant(name: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : new Date(/[zZ]|[+-]\d{2}:?\d{2}$/.test(text) ? text : `${text}Z`);
  const [y, m, d] = text.slice(0, 10).split('-').map(Number);
  if (Number.isNaN(date.getTime()) || m < 1 || m > 12 || d < 1 || d > new Date(Date.UTC(y, m, 0)).getUTCDate()) {
    throw badRequest(`query.${name} "${text}" is not a real date or time`);
  }
  return date.toISOString();
}

/** An open-home bound: a date stays a date (a day in each listing's zone); a date and time is an instant. */
function openBound(name: string, text: string | undefined): OpenBound | undefined {
  if (text === undefined) return undefined;
  const at = instant(name, text)!;
  return /^\d{4}-\d{2}-\d{2}$/.test(text) ? { date: text } : { instant: at };
}

/**
 * Whether an open-home window ends before it starts. Two dates compare as days; a day against an
 * instant by the widest it can be anywhere (from UTC+14 to UTC-12), so no listing's day is refused.
 */
function windowInverted(from: OpenBound, to: OpenBound): boolean {
  if ('date' in from && 'date' in to) return from.date > to.date;
  const start = 'instant' in from ? Date.parse(from.instant) : Date.parse(`${from.date}T00:00:00Z`) - 14 * 3_600_000;
  const end = 'instant' in to ? Date.parse(to.instant) : Date.parse(`${to.date}T00:00:00Z`) + 36 * 3_600_000;
  return start >= end;
}

function bound(min: number | undefined, max: number | undefined, minName: string, maxName: string) {
  if (min !== undefined && max !== undefined && min > max) throw badRequest(`query.${minName} (${min}) is greater than query.${maxName} (${max})`);
}

/** What a cursor is tied to: the filters and sort (not the paging), so it cannot carry one search's position into another. */
function searchFingerprint(raw: RawSearch): string {
  const { cursor: _c, offset: _o, limit: _l, facets: _f, ...rest } = raw;
  const given = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return hash('sha256', JSON.stringify(given), 'base64url').slice(0, 16);
}

/** The opaque cursor of the page after a record: its sort value, its key and the search it belongs to. */
export function encodeCursor(fingerprint: string, value: string, key: string): string {
  return Buffer.from(JSON.stringify({ f: fingerprint, v: value, k: key })).toString('base64url');
}

function decodeCursor(text: string, fingerprint: string, sort: SortKey): { value: string; key: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  const c = parsed as { f?: unknown; v?: unknown; k?: unknown } | null;
  if (!c || typeof c.f !== 'string' || typeof c.v !== 'string' || typeof c.k !== 'string' || c.k.includes('\u0000') || !isSortValue(sort, c.v)) {
    throw badRequest('query.cursor is not a cursor this service gave (send back the next value of a page as it is)');
  }
  if (c.f !== fingerprint) throw badRequest('query.cursor belongs to a search with other filters or another sort: send the same ones with it');
  return { value: c.v, key: c.k };
}

/** The lists of named values (category, status, facets), each value one of those the search knows (400 naming it otherwise). */
function namedValues(raw: RawSearch) {
  const category = values('category', raw.category, (v) => {
    const found = CATEGORIES.find((c) => c.toLowerCase() === v.toLowerCase());
    if (!found) throw badRequest(`query.category "${v}" is not one of ${CATEGORIES.join(', ')}`);
    return found;
  });
  const status = values('status', raw.status, (v) => {
    const found = STATUSES[v.toLowerCase().replace(/[_\s-]/g, '')];
    if (!found) throw badRequest(`query.status "${v}" is not one of ${STATUS_NAMES.join(', ')}`);
    return found;
  }) as SearchStatus[] | undefined;
  const facets = values('facets', raw.facets, (v) => {
    if (!FACET_NAMES.includes(v as FacetName)) throw badRequest(`query.facets "${v}" is not one of ${FACET_NAMES.join(', ')}`);
    return v;
  }) as FacetName[] | undefined;
  return { category, status, facets };
}

/** The map area: a bbox (minLng,minLat,maxLng,maxLat) and a point with its radius, each checked; a radius needs a point. */
function mapArea(raw: RawSearch, radiusGiven: boolean): Pick<ListingSearch, 'bbox' | 'near'> {
  let bbox: ListingSearch['bbox'];
  if (raw.bbox !== undefined) {
    const [minLng, minLat, maxLng, maxLat] = numbers('bbox', raw.bbox, 4);
    bbox = [longitude('bbox', minLng), latitude('bbox', minLat), longitude('bbox', maxLng), latitude('bbox', maxLat)];
    if (minLat > maxLat) throw badRequest(`query.bbox: minLat (${minLat}) is greater than maxLat (${maxLat})`);
  }
  let near: ListingSearch['near'];
  if (raw.near !== undefined) {
    const [lat, lng] = numbers('near', raw.near, 2);
    near = { lat: latitude('near', lat), lng: longitude('near', lng), radiusKm: raw.radiusKm };
  } else if (radiusGiven) {
    throw badRequest('query.radiusKm needs query.near (lat,lng)');
  }
  return { bbox, near };
}

/**
 * A listing search from its query string: the schema first (400 naming each parameter), then
 * what a schema cannot say (lists, points, real dates, bounds, what needs what). Returns the search
 * and its fingerprint, which cursors carry.
 */
export function parseListingSearch(query: Record<string, unknown>): { search: ListingSearch; fingerprint: string } {
  const raw = assertValidQuery<RawSearch>('ListingSearchQuery', query);
  const fingerprint = searchFingerprint(raw);
  const { category, status, facets } = namedValues(raw);
  bound(raw.minPrice, raw.maxPrice, 'minPrice', 'maxPrice');
  bound(raw.minBedrooms, raw.maxBedrooms, 'minBedrooms', 'maxBedrooms');
  bound(raw.minLandArea, raw.maxLandArea, 'minLandArea', 'maxLandArea');

  const { bbox, near } = mapArea(raw, query.radiusKm !== undefined);

  const reverse = raw.sort.startsWith('-');
  const key = raw.sort.replace(/^-/, '') as SortKey;
  if (key === 'distance' && !near) throw badRequest('query.sort=distance needs query.near (lat,lng)');
  if (key === 'relevance' && !raw.q) throw badRequest('query.sort=relevance needs query.q');
  if (raw.cursor !== undefined && query.offset !== undefined)
    throw badRequest('query.cursor and query.offset cannot be combined: a cursor says where the page starts');

  const soldSince = instant('soldSince', raw.soldSince);
  const openFrom = openBound('openFrom', raw.openFrom);
  const openTo = openBound('openTo', raw.openTo);
  if (openFrom && openTo && windowInverted(openFrom, openTo)) throw badRequest(`query.openFrom (${raw.openFrom}) is after query.openTo (${raw.openTo})`);
  const search: ListingSearch = {
    country: raw.country?.toUpperCase(),
    office: raw.office,
    category,
    subCategory: values('subCategory', raw.subCategory, (v) => v.toLowerCase()),
    locality: values('locality', raw.locality, (v) => v.toLowerCase()),
    region: values('region', raw.region, (v) => v.toLowerCase()),
    postcode: values('postcode', raw.postcode, (v) => v.toUpperCase().replace(/\s+/g, '')),
    saleMode: raw.saleMode,
    status: status ?? (soldSince ? ['sold'] : undefined),
    soldSince,
    updatedSince: instant('updatedSince', raw.updatedSince),
    listedSince: instant('listedSince', raw.listedSince),
    minPrice: raw.minPrice,
    maxPrice: raw.maxPrice,
    minBedrooms: raw.minBedrooms,
    maxBedrooms: raw.maxBedrooms,
    minBathrooms: raw.minBathrooms,
    minCarSpaces: raw.minCarSpaces,
    minLandArea: raw.minLandArea,
    maxLandArea: raw.maxLandArea,
    q: raw.q?.trim() || undefined,
    bbox,
    near,
    agent: raw.agent,
    openFrom,
    openTo,
    sort: { key, reverse },
    facets,
    limit: raw.limit,
    offset: raw.offset,
    after: raw.cursor === undefined ? undefined : decodeCursor(raw.cursor, fingerprint, key),
  };
  if (raw.q !== undefined && !search.q) throw badRequest('query.q has no words');
  if (search.q) checkKeywords(search.q);
  return { search, fingerprint };
}
