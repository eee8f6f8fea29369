/**
 * bench/alerts: saved-search alerts at scale on PostgreSQL (issue 63, item 5), in one run.
 * - 3,000 Australian suburbs around the eight capitals (each with its state, a postcode shared by
 *   two neighbours and a centre), popular ones more so (weight 1/sqrt(rank)); BENCH_ALERT_LISTINGS
 *   listings (default 50,000) spread over them by the same weight, as real listings rows.
 * - SEARCHES confirmed saved searches (default 100,000) with the spread a portal's buyers give
 *   (printed at the start), each made from the JSON body a subscriber posts, by the service's own
 *   parsing (api/alert-search.ts: parseListingSearch, keywordQuery, savedSearchColumns).
 * - CHANGES of the listings (default 30,000) matched in batches of 2,000 {seq, listingKey,
 *   reason: 'new'}, each in its transaction, as workers/alerts/match-alerts.ts does. Target:
 *   >= 1,000 changed listings matched a second. Then the plan of one batch (EXPLAIN ANALYZE, rolled
 *   back): the anchors GIN index must find the candidate searches.
 * - A check of what matched: for a sample of saved searches, the same search run the way
 *   GET /v1/listings runs it (db/listing-search/filters.ts, searchFilters) over the changed listings must
 *   find exactly the listings matched.
 * - composeDueAlerts over every waiting match (hold 0; the daily searches due): mails queued a
 *   second, and this process's peak RSS while it runs beside the peak before it (bounded: it
 *   pages 500 subscriptions at a time).
 *
 *   npm run bench:alerts                    # 100,000 saved searches, 30,000 changed listings
 *   npm run bench:alerts -- 20000 10000     # a quicker run: searches, changes
 * BENCH_BATCH changes the batch size (default the worker's ROWS_PER_RUN, 2,000).
 * Uses BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), in a scratch schema
 * dropped at the end (kept with BENCH_KEEP=1, to explain statements against it). With the server
 * on this machine it also prints PostgreSQL's own CPU seconds for the matching (from /proc, at 100
 * ticks a second), a figure that other work on a shared machine inflates far less than the
 * wall-clock time.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { parseAlertSearch } from '../api/alert-search.js';
import { parseListingSearch } from '../api/listing-search-query.js';
import { composeDueAlerts } from '../db/alert-mails.js';
import { type AlertChange, matchChanges, matchChangesStatement } from '../db/alert-matching.js';
import { createDb, type Db, migrateToLatest } from '../db/knex.js';
import { keywordQuery, searchFilters } from '../db/listing-search/filters.js';
import { ROWS_PER_RUN } from '../workers/alerts/match-alerts.js';
import { measure } from './synthetic-feed.js';
import { LOAD_TIMEOUT_MS } from './synthetic-listings.js';

const SEARCHES = Number(process.argv[2] ?? 100_000);
const CHANGES = Number(process.argv[3] ?? 30_000);
const LISTINGS = Math.max(CHANGES, Number(process.env.BENCH_ALERT_LISTINGS ?? 50_000));
const BATCH = Number(process.env.BENCH_BATCH ?? ROWS_PER_RUN);
const SUBURBS = 3_000;
const CHECKED = 200;
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A seeded generator (mulberry32): the same searches every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = seeded(63);
const chance = (p: number) => rand() < p;
const between = (lo: number, hi: number, step = 1) => lo + Math.floor(rand() * ((hi - lo) / step + 1)) * step;
const pick = <T>(values: readonly T[]) => values[Math.floor(rand() * values.length)];

/** The capitals: state, centre, share of suburbs (and so of listings and buyers), first postcode, radius of their suburbs. */
const CITIES = [
  { state: 'VIC', lat: -37.81, lng: 144.96, share: 0.3, postcode: 3000, km: 45, zone: 'Australia/Melbourne' },
  { state: 'NSW', lat: -33.87, lng: 151.21, share: 0.3, postcode: 2000, km: 45, zone: 'Australia/Sydney' },
  { state: 'QLD', lat: -27.47, lng: 153.03, share: 0.17, postcode: 4000, km: 35, zone: 'Australia/Brisbane' },
  { state: 'WA', lat: -31.95, lng: 115.86, share: 0.1, postcode: 6000, km: 35, zone: 'Australia/Perth' },
  { state: 'SA', lat: -34.93, lng: 138.6, share: 0.07, postcode: 5000, km: 30, zone: 'Australia/Adelaide' },
  { state: 'ACT', lat: -35.28, lng: 149.13, share: 0.03, postcode: 2600, km: 15, zone: 'Australia/Sydney' },
  { state: 'TAS', lat: -42.88, lng: 147.33, share: 0.02, postcode: 7000, km: 20, zone: 'Australia/Hobart' },
  { state: 'NT', lat: -12.46, lng: 130.84, share: 0.01, postcode: 800, km: 15, zone: 'Australia/Darwin' },
];
const STEMS =
  'Fitzroy Richmond Carlton Brunswick Northcote Kew Hawthorn Toorak Prahran Elwood Bondi Manly Newtown Balmain Paddington Mosman Coogee Glebe Leichhardt Marrickville New Farm Paddock Ashgrove Bulimba Subiaco Fremantle Cottesloe Leederville Norwood Glenelg Unley Prospect Burnside Kingston Braddon Turner Sandy Bay Battery Point Parap Nightcliff Camberwell Malvern Brighton Essendon Coburg Preston Footscray Yarraville Williamstown Ascot'.split(
    ' ',
  );

interface Suburb {
  idx: number;
  name: string;
  city: (typeof CITIES)[number];
  postcode: string;
  lat: number;
  lng: number;
  /** Cumulative popularity, (0, 1]. */
  upTo: number;
  neighbours: number[];
}

function makeSuburbs(): Suburb[] {
  const perCity = new Map<string, number>();
  const ranks = Array.from({ length: SUBURBS }, (_, i) => i + 1).sort(() => rand() - 0.5);
  const suburbs: Suburb[] = [];
  let total = 0;
  const weights: number[] = [];
  for (let i = 0; i < SUBURBS; i += 1) {
    let u = rand();
    const city = CITIES.find((c) => (u -= c.share) < 0) ?? CITIES[0];
    const k = perCity.get(city.state) ?? 0;
    perCity.set(city.state, k + 1);
    const r = (city.km * Math.sqrt(rand())) / 111;
    const angle = rand() * 2 * Math.PI;
    const lat = city.lat + r * Math.sin(angle);
    const lng = city.lng + (r * Math.cos(angle)) / Math.cos((city.lat * Math.PI) / 180);
    const name = `${STEMS[i % STEMS.length]} ${Math.floor(i / STEMS.length) + 1}`;
    const postcode = String(city.postcode + Math.floor(k / 2)).padStart(4, '0');
    weights.push(1 / Math.sqrt(ranks[i]));
    total += weights[i];
    suburbs.push({ idx: i, name, city, postcode, lat: Number(lat.toFixed(5)), lng: Number(lng.toFixed(5)), upTo: 0, neighbours: [] });
  }
  let sum = 0;
  for (const s of suburbs) {
    sum += weights[s.idx] / total;
    s.upTo = sum;
    s.neighbours = suburbs
      .filter((o) => o !== s && o.city === s.city)
      .map((o) => ({ o, d: (o.lat - s.lat) ** 2 + (o.lng - s.lng) ** 2 }))
      .sort((a, b) => a.d - b.d)
      .slice(0, 3)
      .map(({ o }) => o.idx);
  }
  suburbs[SUBURBS - 1].upTo = 1;
  return suburbs;
}

/** A suburb by popularity. */
function popular(suburbs: Suburb[]): Suburb {
  const u = rand();
  let lo = 0;
  let hi = suburbs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (suburbs[mid].upTo < u) lo = mid + 1;
    else hi = mid;
  }
  return suburbs[lo];
}

async function loadSuburbs(db: Db, suburbs: Suburb[]): Promise<void> {
  await db.raw('CREATE TABLE bench_suburbs (idx int PRIMARY KEY, name text, state text, postcode text, lat float8, lng float8, up_to float8)');
  await db.raw('INSERT INTO bench_suburbs SELECT * FROM unnest(?::int[], ?::text[], ?::text[], ?::text[], ?::float8[], ?::float8[], ?::float8[])', [
    suburbs.map((s) => s.idx),
    suburbs.map((s) => s.name),
    suburbs.map((s) => s.city.state),
    suburbs.map((s) => s.postcode),
    suburbs.map((s) => s.lat),
    suburbs.map((s) => s.lng),
    suburbs.map((s) => s.upTo),
  ]);
  await db.raw('CREATE INDEX ON bench_suburbs (up_to)');
}

/**
 * Listings made by PostgreSQL, each in a suburb picked by popularity and within about 1 km of its
 * centre: residential 60%, rental 25%, land 8%, rural 4%, commercial 3%; 97% active, 1% under
 * offer, 2% withdrawn; 1% hidden; 5% of prices withheld; headlines from eight phrases (keywords).
 */
async function loadListings(db: Db, n: number): Promise<void> {
  const step = 25_000;
  for (let from = 0; from < n; from += step) {
    await db.raw(
      `WITH g AS (
         SELECT i, abs(hashint4(i)) AS h, abs(hashint4(i * 7 + 1)) AS h2, abs(hashint4(i * 13 + 5)) AS h3,
                (abs(hashint4(i * 3 + 11)) % 1000000) / 1000000.0 AS u
           FROM generate_series(?::int, ?::int) AS i
       ), w AS (
         SELECT g.*, s.*, 'OFF' || (s.idx / 5) AS office, 'AL' || i AS uid,
           CASE WHEN h2 % 100 < 60 THEN 'residential' WHEN h2 % 100 < 85 THEN 'rental' WHEN h2 % 100 < 93 THEN 'land'
                WHEN h2 % 100 < 97 THEN 'rural' ELSE 'commercial' END AS category,
           CASE WHEN h % 1000 < 970 THEN 'active' WHEN h % 1000 < 980 THEN 'under_offer' ELSE 'withdrawn' END AS status
           FROM g CROSS JOIN LATERAL (SELECT * FROM bench_suburbs b WHERE b.up_to >= g.u ORDER BY b.up_to LIMIT 1) s
       ), p AS (
         SELECT w.*,
           CASE category WHEN 'residential' THEN 350000 + (h3 % 2651) * 1000 WHEN 'land' THEN 150000 + (h3 % 1351) * 1000
                WHEN 'rural' THEN 400000 + (h3 % 3601) * 1000 WHEN 'commercial' THEN 300000 + (h3 % 4701) * 1000 ELSE 250 + h3 % 1251 END AS amount,
           CASE WHEN category IN ('residential', 'rental', 'rural') THEN 1 + (h2 / 13) % 5 END AS beds,
           category <> 'rental' AND (h3 / 7) % 100 < 5 AS withheld
           FROM w
       )
       INSERT INTO listings (listing_key, office, unique_id, format, status, mod_time, content_hash, hidden, data, public_patch)
       SELECT office || '/' || uid, office, uid, 'reaxml', status, timestamptz '2026-11-01' + (i || ' seconds')::interval, md5(uid), (h2 % 1000) < 10,
         jsonb_build_object(
           'listingKey', office || '/' || uid, 'office', office, 'uniqueId', uid, 'format', 'reaxml', 'category', category,
           'saleMode', CASE WHEN category = 'rental' THEN 'rent' ELSE 'sale' END, 'status', status,
           'modTime', to_char((timestamptz '2026-11-01' + (i || ' seconds')::interval) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
           'price', CASE WHEN category = 'rental' THEN NULL ELSE jsonb_build_object('amount', amount, 'currency', 'AUD', 'display', NOT withheld, 'text', NULL) END,
           'rent', CASE WHEN category = 'rental' THEN jsonb_build_object('amount', amount, 'currency', 'AUD', 'period', 'week', 'display', true) ELSE NULL END,
           'bedrooms', beds, 'bathrooms', 1 + (h2 / 17) % 3, 'landAreaSqm', CASE WHEN category IN ('residential', 'land', 'rural') THEN 150 + h3 % 1500 END,
           'features', jsonb_build_object('garages', (h2 / 19) % 3),
           'address', jsonb_build_object('country', 'AU', 'region', state, 'locality', name, 'postcode', postcode, 'street', 'Main Road',
                                         'streetNumber', ((h / 5) % 300)::text, 'subNumber', NULL, 'display', true),
           'location', jsonb_build_object('lat', lat + ((h % 1000) - 500) / 50000.0, 'lng', lng + ((h2 % 1000) - 500) / 50000.0, 'precision', 'street', 'source', 'bench'),
           'media', jsonb_build_array(jsonb_build_object('url', 'https://img.example.com/' || uid || '/m.jpg', 'kind', 'photo', 'order', 0, 'hero', true, 'slot', 'm')),
           'agents', jsonb_build_array(jsonb_build_object('name', 'Agent ' || office, 'email', 'agent@' || lower(office) || '.example', 'phones', '[]'::jsonb, 'sourceAgentId', NULL, 'slot', '1')),
           'headline', jsonb_build_object('en-AU', (ARRAY['Renovated family home with pool', 'Light-filled apartment near transport', 'Period cottage with a north garden',
                  'Waterfront living with views', 'Brand new townhouse', 'Spacious home on a large block', 'Studio close to the city',
                  'Character home in a leafy street'])[1 + (h3 / 11) % 8]),
           'description', jsonb_build_object('en-AU', 'A synthetic listing for the alerts benchmark.'),
           'inspections', '[]'::jsonb, 'links', '[]'::jsonb, 'projectKey', NULL, 'contentHash', md5(uid)
         ),
         CASE WHEN withheld THEN jsonb_build_object('price', jsonb_build_object('amount', NULL, 'currency', 'AUD', 'display', false, 'text', 'Contact agent')) END
       FROM p`,
      [from, Math.min(from + step, n) - 1],
    );
    process.stdout.write(`\rloaded ${Math.min(from + step, n)} listings`);
  }
  process.stdout.write('\n');
  await db.raw('VACUUM ANALYZE listings');
}

/** How the saved searches spread, counted as they are made. */
const spread = new Map<string, number>();
const count = (what: string) => spread.set(what, (spread.get(what) ?? 0) + 1);
const KEYWORDS = ['pool', 'waterfront', 'renovated', 'garden', 'views', 'townhouse', 'character home', 'studio'];

/**
 * One saved search as a subscriber posts it. Place: 85% localities (70% of them one suburb, else it
 * and its 1-3 nearest), 5% postcodes (one, or two neighbours'), 5% a map area (half bbox of 2-9 km
 * a side, half near with 1-10 km), 4% a state (15% two), 1% the country. Filters: 70% to buy, 25%
 * to rent, 5% either; prices, rooms and types as buyers set them; 2% keywords. A state or the
 * whole country is searched for something in particular: a type (or rent) within a price band of
 * $100k-$500k ($100-$200 a week) with a bedroom floor, or a house with a feature by keywords.
 */
function savedSearch(suburbs: Suburb[]): { body: Record<string, unknown>; zone: string } {
  const s: Record<string, unknown> = {};
  const home = popular(suburbs);
  const u = rand();
  let broad = false;
  if (u < 0.85) {
    const many = chance(0.3);
    s.locality = many ? [home.name, ...home.neighbours.slice(0, between(1, 3)).map((i) => suburbs[i].name)] : home.name;
    count(many ? 'place: 2-4 localities' : 'place: 1 locality');
  } else if (u < 0.9) {
    const two = chance(0.2);
    const other = suburbs[home.neighbours[0]].postcode;
    s.postcode = two && other !== home.postcode ? [home.postcode, other] : home.postcode;
    count('place: postcode');
  } else if (u < 0.95) {
    if (chance(0.5)) {
      const dLat = between(1, 4) / 100;
      const dLng = between(1, 5) / 100;
      const round = (x: number) => Number(x.toFixed(4));
      s.bbox = [round(home.lng - dLng), round(home.lat - dLat), round(home.lng + dLng), round(home.lat + dLat)].join(',');
      count('place: map bbox');
    } else {
      s.near = `${home.lat},${home.lng}`;
      s.radiusKm = between(1, 10);
      count('place: map near');
    }
  } else if (u < 0.99) {
    broad = true;
    const other = popular(suburbs).city.state;
    s.region = chance(0.15) && other !== home.city.state ? [home.city.state, other] : home.city.state;
    count('place: state (region)');
  } else {
    broad = true;
    s.country = 'AU';
    count('place: country only');
  }
  const mode = rand();
  if (broad) {
    // A whole state or the country is searched for something in particular: a type within a price
    // band and with rooms, or a feature by keywords.
    if (mode < 0.2) {
      s.saleMode = 'rent';
      s.minPrice = between(300, 1000, 50);
      s.maxPrice = (s.minPrice as number) + between(100, 200, 50);
      s.minBedrooms = between(2, 4);
      count('to rent');
    } else {
      s.saleMode = 'sale';
      if (mode < 0.6) {
        s.category = 'residential';
        s.minPrice = between(400, 2500, 50) * 1000;
        s.maxPrice = (s.minPrice as number) + between(100, 300, 50) * 1000;
        s.minBedrooms = between(3, 5);
      } else if (mode < 0.8) {
        s.category = pick(['rural', 'land']);
        s.minPrice = between(200, 2500, 50) * 1000;
        s.maxPrice = (s.minPrice as number) + between(200, 500, 50) * 1000;
      } else {
        s.category = 'residential';
        s.q = pick(['waterfront', 'pool', 'views', 'character home']);
        s.maxPrice = between(800, 2500, 50) * 1000;
        count('with keywords (q)');
      }
      count('to buy');
    }
  } else if (mode < 0.25) {
    s.saleMode = 'rent';
    if (chance(0.7)) s.maxPrice = between(400, 1200, 50);
    if (chance(0.5)) s.minBedrooms = between(1, 3);
    count('to rent');
  } else if (mode < 0.95) {
    s.saleMode = 'sale';
    const type = rand();
    if (type < 0.55) s.category = 'residential';
    else if (type < 0.6) s.category = pick(['land', 'rural']);
    if (chance(0.65)) s.maxPrice = between(500, 2500, 50) * 1000;
    if (chance(0.25)) s.minPrice = Math.max(200_000, ((s.maxPrice as number | undefined) ?? 2_000_000) - between(200, 800, 100) * 1000);
    if (s.category !== 'land' && chance(0.5)) s.minBedrooms = between(2, 4);
    if (chance(0.05)) s.maxBedrooms = Math.max((s.minBedrooms as number | undefined) ?? 1, between(2, 4));
    if (chance(0.15)) s.minBathrooms = 2;
    if (chance(0.1)) s.minCarSpaces = between(1, 2);
    if (chance(0.05)) s.minLandArea = between(300, 800, 50);
    count('to buy');
  } else {
    if (chance(0.5)) s.minBedrooms = between(1, 3);
    count('to buy or rent');
  }
  if (s.maxPrice !== undefined || s.minPrice !== undefined) count('with a price bound');
  if (s.minBedrooms !== undefined || s.maxBedrooms !== undefined) count('with a bedroom bound');
  if (s.category !== undefined) count('with a type');
  if (!broad && chance(0.02)) {
    s.q = pick(KEYWORDS);
    count('with keywords (q)');
  }
  return { body: s, zone: home.city.zone };
}

async function loadSearches(db: Db, suburbs: Suburb[], n: number): Promise<void> {
  const chunk = 1_000;
  for (let from = 0; from < n; from += chunk) {
    const rows: Record<string, unknown>[] = [];
    for (let i = from; i < Math.min(from + chunk, n); i += 1) {
      const { body, zone } = savedSearch(suburbs);
      const { params, columns } = await parseAlertSearch(db, body);
      const daily = chance(0.4);
      count(daily ? 'daily' : 'instant');
      rows.push({
        id: randomUUID(),
        email: `buyer${i}@home${i % 97}.example`,
        email_key: `buyer${i}@home${i % 97}.example`,
        token: `lal_bench_${i}_${randomUUID()}`,
        status: 'confirmed',
        frequency: daily ? 'daily' : 'instant',
        time_zone: zone,
        search: JSON.stringify(params),
        ...columns,
        confirm_mails: 1,
        confirmed_at: db.fn.now(),
        // Due now, so the compose step below has the daily digests to make too.
        next_digest_at: daily ? db.raw(`now() - interval '1 minute'`) : null,
      });
    }
    await db('alert_subscriptions').insert(rows);
    process.stdout.write(`\rsaved ${Math.min(from + chunk, n)} searches`);
  }
  process.stdout.write('\n');
  await db.raw('VACUUM ANALYZE alert_subscriptions');
}

/** CPU seconds a PostgreSQL backend has used, from /proc (a server on this machine), else null. */
function backendCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

/** For a sample of saved searches, the listings GET /v1/listings finds among the changed ones against those matched. */
async function checkMatches(db: Db, changedKeys: string[]): Promise<{ checked: number; listings: number; differing: string[] }> {
  const sample: { id: string; search: Record<string, string> }[] = (
    await db.raw('SELECT id, search FROM alert_subscriptions ORDER BY md5(id::text) LIMIT ?', [CHECKED])
  ).rows;
  const differing: string[] = [];
  let listings = 0;
  for (const sub of sample) {
    const { search } = parseListingSearch(sub.search);
    if (search.q) search.tsquery = await keywordQuery(db, search.q);
    const expected: string[] = (await searchFilters(db, search).whereRaw('listing_key = ANY(?::text[])', [changedKeys]).pluck('listing_key')).sort();
    const matched: string[] = (await db('alert_matches').where({ subscription_id: sub.id }).pluck('listing_key')).sort();
    listings += expected.length;
    if (expected.join('\n') !== matched.join('\n')) differing.push(`${JSON.stringify(sub.search)}: ${expected.length} found, ${matched.length} matched`);
  }
  return { checked: sample.length, listings, differing };
}

async function main() {
  const schema = `bench_alerts_${process.pid}`;
  const db = createDb({ databaseUrl: DATABASE_URL, dataDir: '', schema, statementTimeoutMs: LOAD_TIMEOUT_MS });
  try {
    await migrateToLatest(db);
    console.log(
      `bench:alerts  ${SEARCHES} confirmed saved searches, ${CHANGES} changed listings of ${LISTINGS}, batches of ${BATCH}, PostgreSQL ${DATABASE_URL.replace(/\/\/[^@]*@/, '//')}`,
    );
    const suburbs = makeSuburbs();
    await loadSuburbs(db, suburbs);
    let started = Date.now();
    await loadListings(db, LISTINGS);
    console.log(`listings       ${LISTINGS} over ${SUBURBS} suburbs in ${CITIES.length} states, in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    started = Date.now();
    await loadSearches(db, suburbs, SEARCHES);
    console.log(`saved searches ${SEARCHES} through parseAlertSearch/savedSearchColumns in ${((Date.now() - started) / 1000).toFixed(0)} s; the spread:`);
    for (const [what, n] of [...spread].sort(([a], [b]) => (a < b ? -1 : 1)))
      console.log(`  ${what.padEnd(24)} ${String(n).padStart(7)}  ${((100 * n) / SEARCHES).toFixed(1)}%`);
    const { rows: anchorRows } = await db.raw(
      `SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY cardinality(anchors)) AS p50, max(cardinality(anchors)) AS max FROM alert_subscriptions`,
    );
    console.log(`  anchors per search: p50 ${anchorRows[0].p50}, max ${anchorRows[0].max}`);

    // The changes: the first CHANGES listings (spread over the suburbs by popularity), newly published.
    const keys: string[] = await db('listings').orderByRaw('substr(unique_id, 3)::int').limit(CHANGES).pluck('listing_key');
    const [{ n: publicChanged }] = await db('listings').whereIn('listing_key', keys).where('is_public', true).count({ n: '*' });
    const at = new Date();
    const changes: AlertChange[] = keys.map((listingKey, i) => ({ seq: i + 1, listingKey, reason: 'new', at }));
    const times: number[] = [];
    /** PostgreSQL's CPU seconds per batch (its backend's, from /proc): what the machine's other work inflates least. */
    const cpu: number[] = [];
    let recorded = 0;
    const run = await measure(async () => {
      for (let from = 0; from < changes.length; from += BATCH) {
        const batch = changes.slice(from, from + BATCH);
        const t = process.hrtime.bigint();
        const n = await db.transaction(async (trx) => {
          const pid = (await trx.raw('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
          const before = backendCpuSeconds(pid);
          const found = await matchChanges(trx, batch);
          const after = backendCpuSeconds(pid);
          if (before !== null && after !== null) cpu.push(after - before);
          return found;
        });
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
        recorded += n;
      }
    });
    const [{ n: matchRows, subs: matchedSubs }] = await db('alert_matches').select(db.raw('count(*) AS n, count(DISTINCT subscription_id) AS subs'));
    const sorted = [...times].sort((a, b) => a - b);
    const rate = changes.length / run.seconds;
    console.log(
      `load average   ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')} (1, 5, 15 min) on ${availableParallelism()} cores: other work on the machine slows every figure below`,
    );
    console.log(`batch times    ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
    console.log(
      `matching       ${changes.length} changes (${publicChanged} public) in ${run.seconds.toFixed(2)} s: ${Math.round(rate)} changed listings/s  (target >= 1000)  ${rate >= 1000 ? 'MET' : 'NOT MET'}`,
    );
    console.log(
      `               ${matchRows} matches (${(Number(matchRows) / Number(publicChanged)).toFixed(1)} a public change) for ${matchedSubs} subscriptions (matchChanges reported ${recorded}); per ${BATCH}-change batch p50 ${percentile(sorted, 50).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms`,
    );

    if (cpu.length === times.length) {
      const total = cpu.reduce((a, b) => a + b, 0);
      const perCpu = changes.length / total;
      console.log(
        `               PostgreSQL CPU ${total.toFixed(1)} s in all, per batch p50 ${percentile(
          [...cpu].sort((a, b) => a - b),
          50,
        ).toFixed(2)} s: ${Math.round(perCpu)} changed listings per CPU second of PostgreSQL (a core of its own)  ${perCpu >= 1000 ? 'MET' : 'NOT MET'}`,
      );
    }

    // One batch's plan: the same statement, on fresh positions, rolled back.
    const { sql, bindings } = matchChangesStatement(changes.slice(0, BATCH).map((c) => ({ ...c, seq: c.seq + 1_000_000_000 })));
    const trx = await db.transaction();
    let plan: string[];
    try {
      plan = (await trx.raw(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${sql}`, bindings)).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']);
    } finally {
      await trx.rollback();
    }
    const usesAnchors = plan.some((line) => line.includes('alert_subscriptions_anchors_idx'));
    console.log(`plan of one batch (EXPLAIN ANALYZE, rolled back): anchors GIN index ${usesAnchors ? 'USED' : 'NOT USED'}`);
    for (const line of plan) console.log(`  ${line}`);

    const check = await checkMatches(db, keys);
    console.log(
      `check          ${check.checked} saved searches run as GET /v1/listings runs them over the changed listings: ${check.listings} listings, ${check.differing.length ? `${check.differing.length} DIFFER` : 'the same as matched'}`,
    );
    for (const d of check.differing.slice(0, 10)) console.log(`  ${d}`);

    // Mails: every waiting match composed into the outbox, as the alerts turn does (hold 0).
    const [{ waiting, subs, due }] = (
      await db.raw(
        `SELECT (SELECT count(*) FROM alert_matches WHERE notification_id IS NULL AND NOT skipped) AS waiting,
                (SELECT count(DISTINCT subscription_id) FROM alert_matches WHERE notification_id IS NULL AND NOT skipped) AS subs,
                (SELECT count(*) FROM alert_subscriptions WHERE frequency = 'daily' AND next_digest_at <= now()) AS due`,
      )
    ).rows;
    await db.raw('VACUUM ANALYZE alert_matches');
    const rssBefore = process.resourceUsage().maxRSS;
    const compose = await measure(() => composeDueAlerts(db, 0));
    const [{ left }] = await db('alert_matches').whereNull('notification_id').where('skipped', false).count({ left: '*' });
    const mails = compose.value;
    console.log(
      `compose        ${mails} mails queued over ${waiting} waiting matches of ${subs} subscriptions (${due} daily digests due) in ${compose.seconds.toFixed(2)} s: ${Math.round(mails / compose.seconds)} mails/s; ${left} matches left waiting`,
    );
    console.log(
      `memory         max RSS before composing ${mb(rssBefore)}, after ${mb(process.resourceUsage().maxRSS)} (peak while composing ${compose.peakMb.toFixed(0)} MB)  ${Number(left) === 0 ? '' : 'NOT ALL COMPOSED'}`,
    );
  } finally {
    if (process.env.BENCH_KEEP) console.log(`kept schema ${schema} (BENCH_KEEP)`);
    else await db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]).catch(() => undefined);
    await db.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
