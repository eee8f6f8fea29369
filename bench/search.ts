/**
 * bench/search: 1,000,000 synthetic listings in PostgreSQL, then five representative searches
 * and the agents and offices reads at concurrency 16 (autocannon, in its own process), against the
 * service and against a bare node:http handler serving the same queries (same data-access code, same
 * SQL) as the baseline, taking turns (BENCH_ROUNDS rounds of BENCH_SECONDS each, default 4 x 5 s).
 * Targets (issue 16): throughput >= 0.8 of the baseline; p99 <= 1.25 x the baseline's p99 at the
 * same concurrency, both over all rounds together (and, as before, p99 < 50 ms).
 *
 *   npm run bench:search                  # 1,000,000 listings (loading takes a few minutes)
 *   npm run bench:search -- 200000        # a quicker run
 * Uses BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), in a scratch schema.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { createApp } from '../api/app.js';
import { allOffices, refreshDirectory } from '../db/directory.js';
import { createDb, type Db, migrateToLatest } from '../db/knex.js';
import type { ListingSearch } from '../db/listing-search.js';
import { createPublicReads } from '../db/public-reads.js';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { startRuntime } from '../workers/runtime.js';
import { aggregate, type LoadResult } from './load.js';

const LISTINGS = Number(process.argv[2] ?? 1_000_000);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Baseline and service take turns, so a slow spell on this shared machine lands on both alike. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CONNECTIONS = 16;
const run = promisify(execFile);

/** Five searches a portal makes all day, and the two directory reads. */
const PATHS = [
  '/v1/listings?limit=24',
  '/v1/listings?country=AU&saleMode=sale&limit=24',
  '/v1/listings?country=AU&saleMode=sale&category=residential&minPrice=500000&maxPrice=1500000&minBedrooms=3&limit=24',
  '/v1/listings?country=NZ&saleMode=rent&maxPrice=800&limit=24',
  '/v1/listings?office=OFF17&limit=24&offset=24',
  '/v1/agents?country=AU&query=richmond%2012&limit=60',
  '/v1/offices?country=AU&limit=60',
];

/**
 * Rows made by PostgreSQL itself: countries AU 70% / NZ 15% / GB 10% / US 5%; 2,000 offices with
 * ten agents each, each office in about five of 3,000 localities; residential 55%, rental 25%, land 8%, commercial 7%, rural 5%; 90% active or
 * under offer, the rest sold, leased or withdrawn; 1% hidden; two years of modTimes.
 */
async function load(db: Db, n: number): Promise<void> {
  const step = 100_000;
  for (let from = 0; from < n; from += step) {
    await db.raw(
      `WITH g AS (
         SELECT i, (i % 2000) AS o, abs(hashint4(i)) AS h, abs(hashint4(i * 7 + 1)) AS h2 FROM generate_series(?::int, ?::int) AS i
       ), v AS (
         SELECT i, o, 'OFF' || o AS office, 'L' || i AS uid, h, h2,
           CASE WHEN h % 100 < 70 THEN 'AU' WHEN h % 100 < 85 THEN 'NZ' WHEN h % 100 < 95 THEN 'GB' ELSE 'US' END AS country,
           CASE WHEN h2 % 100 < 55 THEN 'residential' WHEN h2 % 100 < 80 THEN 'rental' WHEN h2 % 100 < 88 THEN 'land' WHEN h2 % 100 < 95 THEN 'commercial' ELSE 'rural' END AS category,
           CASE WHEN h % 1000 < 850 THEN 'active' WHEN h % 1000 < 900 THEN 'under_offer' WHEN h % 1000 < 950 THEN 'sold' WHEN h % 1000 < 980 THEN 'leased' ELSE 'withdrawn' END AS status,
           (h2 % 1000) < 10 AS hidden,
           timestamptz '2024-01-01' + ((h % 63072000) || ' seconds')::interval AS mod_time,
           -- each office works a handful of neighbouring localities out of 3,000
           (ARRAY['Richmond','Bondi','Glenelg','Fremantle','Ponsonby','Camden','Brooklyn','Fitzroy','Newtown','Paddington',
                  'Carlton','Manly','Norwood','Subiaco','Parnell','Hackney','Queens','Kew','Balmain','Toorak'])[1 + ((o * 3 + (h2 / 7) % 5) % 3000) % 20]
             || ' ' || (((o * 3 + (h2 / 7) % 5) % 3000) / 20) AS locality
         FROM g
       )
       INSERT INTO listings (listing_key, office, unique_id, format, status, mod_time, content_hash, hidden, data)
       SELECT office || '/' || uid, office, uid, 'reaxml', status, mod_time, md5(uid), hidden,
         jsonb_build_object(
           'listingKey', office || '/' || uid, 'office', office, 'uniqueId', uid, 'format', 'reaxml', 'category', category,
           'saleMode', CASE WHEN category = 'rental' THEN 'rent' ELSE 'sale' END, 'status', status,
           'modTime', to_char(mod_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
           'price', CASE WHEN category = 'rental' THEN NULL ELSE jsonb_build_object('amount', 200000 + (h2 % 2800) * 1000, 'currency', 'AUD', 'display', true, 'text', NULL) END,
           'rent', CASE WHEN category = 'rental' THEN jsonb_build_object('amount', 200 + (h2 % 1800), 'currency', 'AUD', 'period', 'week', 'display', true) ELSE NULL END,
           'bedrooms', (h2 / 13) % 7, 'bathrooms', 1 + (h2 / 17) % 3,
           'address', jsonb_build_object('country', country, 'region', NULL, 'locality', locality, 'postcode', lpad(((h / 3) % 9000 + 1000)::text, 4, '0'), 'street', 'Main Road', 'streetNumber', ((h / 5) % 300)::text, 'subNumber', NULL, 'display', true),
           'location', jsonb_build_object('lat', -37.8 + (h % 1000) / 10000.0, 'lng', 144.9 + (h2 % 1000) / 10000.0, 'precision', 'locality', 'source', 'bench'),
           'media', jsonb_build_array(jsonb_build_object('url', 'https://img.example.com/' || uid || '/m.jpg', 'kind', 'photo', 'order', 0, 'hero', true, 'slot', 'm')),
           'agents', jsonb_build_array(jsonb_build_object('name', 'Agent ' || o || '-' || (h % 10), 'email', 'agent' || (h % 10) || '@off' || o || '.example', 'phones', '[]'::jsonb, 'sourceAgentId', NULL, 'slot', '1')),
           'headline', jsonb_build_object('en-AU', 'Home ' || uid), 'description', jsonb_build_object('en-AU', 'A synthetic listing for the search benchmark.'),
           'features', '{}'::jsonb, 'inspections', '[]'::jsonb, 'links', '[]'::jsonb, 'projectKey', NULL, 'contentHash', md5(uid)
         )
       FROM v`,
      [from, Math.min(from + step, n) - 1],
    );
    process.stdout.write(`\rloaded ${Math.min(from + step, n)} listings`);
  }
  process.stdout.write('\n');
  await db.raw('VACUUM ANALYZE listings');
}

/** The baseline: node:http, no framework, no validation; the same data-access functions and SQL. */
function bareServer(db: Db): Server {
  const reads = createPublicReads(db);
  return createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://x');
    const q = Object.fromEntries(url.searchParams);
    const num = (k: string) => (q[k] === undefined ? undefined : Number(q[k]));
    try {
      let body: string;
      if (url.pathname === '/v1/listings') {
        const search: ListingSearch = {
          country: q.country,
          office: q.office,
          category: q.category ? [q.category] : undefined,
          saleMode: (q.saleMode as ListingSearch['saleMode']) ?? 'both',
          minPrice: num('minPrice'),
          maxPrice: num('maxPrice'),
          minBedrooms: num('minBedrooms'),
          sort: { key: 'newest', reverse: false },
          limit: num('limit') ?? 24,
          offset: num('offset') ?? 0,
        };
        const page = await reads.searchListings(search);
        body = `{"total":${page.total},"listings":[${page.json.join(',')}],"nextOffset":${page.nextOffset}}`;
      } else {
        const dq = { country: q.country, office: q.office, query: q.query, limit: num('limit') ?? 60, offset: num('offset') ?? 0 };
        const page = url.pathname === '/v1/agents' ? await reads.listAgents(dq) : await reads.listOffices(dq);
        body = `{"total":${page.total},"${url.pathname.slice(4)}":[${page.json.join(',')}],"nextOffset":${page.nextOffset}}`;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Drives one server; also reports this process's CPU time per request while it served (the server's own cost). */
type Driven = LoadResult & { seconds: number; cpuUsPerRequest: number; raw: unknown };

/** Drives one server; also reports this process's CPU time per request while it served (the server's own cost). */
async function drive(url: string, seconds: number): Promise<Driven> {
  const cpu = process.cpuUsage();
  const { stdout } = await run(
    process.execPath,
    [new URL('./load.js', import.meta.url).pathname, JSON.stringify({ url, paths: PATHS, connections: CONNECTIONS, seconds })],
    { maxBuffer: 1 << 22 },
  );
  const used = process.cpuUsage(cpu);
  const raw = JSON.parse(stdout) as { duration: number };
  const result = aggregate([raw], { url, connections: CONNECTIONS });
  return { ...result, raw, seconds: raw.duration, cpuUsPerRequest: (used.user + used.system) / Math.max(1, result.requests.total) };
}

async function main() {
  const schema = `bench_search_${process.pid}`;
  const db = createDb({ databaseUrl: DATABASE_URL, dataDir: '', schema });
  const config = loadConfig({ DATABASE_URL, LOG_LEVEL: 'silent' });
  const logger = createLogger('silent');
  const runtime = startRuntime(config, logger, db, { consume: false });
  const servers: Server[] = [];
  try {
    await migrateToLatest(db);
    const started = Date.now();
    await load(db, LISTINGS);
    await refreshDirectory(db, await allOffices(db));
    await db.raw('ANALYZE directory_agents; ANALYZE directory_offices');
    console.log(`loaded and indexed ${LISTINGS} listings in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    const service = createApp({ config, logger, db, ingestQueue: runtime.ingestQueue, leadQueue: runtime.leadQueue });
    const serviceServer = service.listen(0, '127.0.0.1');
    await new Promise((resolve) => serviceServer.once('listening', resolve));
    servers.push(serviceServer);
    const serviceUrl = `http://127.0.0.1:${(serviceServer.address() as AddressInfo).port}`;
    const bare = bareServer(db);
    servers.push(bare);
    const bareUrl = await listen(bare);

    for (const path of PATHS) {
      const res = await fetch(`${serviceUrl}${path}`);
      const body = (await res.json()) as { total?: number };
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(body)}`);
      console.log(`  ${path}  total ${body.total}`);
    }
    // Warm both (plans, caches, connections), then measure each in turn.
    await drive(bareUrl, 3);
    await drive(serviceUrl, 3);
    const rounds: { baseline: Driven; service: Driven }[] = [];
    for (let r = 0; r < ROUNDS; r += 1) rounds.push({ baseline: await drive(bareUrl, SECONDS), service: await drive(serviceUrl, SECONDS) });
    const row = (name: string, r: Driven) =>
      `${name.padEnd(28)} ${(r.requests.total / r.seconds).toFixed(0).padStart(6)} req/s  p50 ${String(r.latency.p50).padStart(3)} ms  p99 ${String(r.latency.p99).padStart(3)} ms  server CPU ${r.cpuUsPerRequest.toFixed(0).padStart(4)} µs/req  non-2xx ${r.non2xx} errors ${r.errors}`;
    console.log(`concurrency ${CONNECTIONS}, ${PATHS.length} paths in rotation, ${ROUNDS} rounds of ${SECONDS} s per server, taking turns`);
    rounds.forEach((r, i) => {
      console.log(row(`round ${i + 1} bare node:http`, r.baseline));
      console.log(row(`round ${i + 1} service`, r.service));
    });
    const all = (pick: (r: (typeof rounds)[number]) => Driven, url: string) =>
      aggregate(
        rounds.map((r) => pick(r).raw),
        { url, connections: CONNECTIONS },
      );
    const baseline = all((r) => r.baseline, bareUrl);
    const measured = all((r) => r.service, serviceUrl);
    const seconds = (pick: (r: (typeof rounds)[number]) => Driven) => rounds.reduce((n, r) => n + pick(r).seconds, 0);
    const cpu = (pick: (r: (typeof rounds)[number]) => Driven) => rounds.reduce((n, r) => n + pick(r).cpuUsPerRequest * pick(r).requests.total, 0);
    const failures = baseline.non2xx + baseline.errors + measured.non2xx + measured.errors;
    console.log(
      row('all rounds bare node:http', {
        ...baseline,
        raw: null,
        seconds: seconds((r) => r.baseline),
        cpuUsPerRequest: cpu((r) => r.baseline) / baseline.requests.total,
      }),
    );
    console.log(
      row('all rounds service', {
        ...measured,
        raw: null,
        seconds: seconds((r) => r.service),
        cpuUsPerRequest: cpu((r) => r.service) / measured.requests.total,
      }),
    );
    const ratio = measured.requests.total / seconds((r) => r.service) / (baseline.requests.total / seconds((r) => r.baseline));
    console.log(`requests: baseline ${baseline.requests.total}, service ${measured.requests.total}; non-2xx and errors ${failures}`);
    console.log(`throughput service/baseline: ${ratio.toFixed(2)} (target >= 0.80) ${ratio >= 0.8 ? 'MET' : 'NOT MET'}`);
    const p99Ratio = measured.latency.p99 / Math.max(1, baseline.latency.p99);
    console.log(
      `service p99 / baseline p99: ${measured.latency.p99} / ${baseline.latency.p99} ms = ${p99Ratio.toFixed(2)} (target <= 1.25) ${p99Ratio <= 1.25 ? 'MET' : 'NOT MET'}; below 50 ms ${measured.latency.p99 < 50 ? 'MET' : 'NOT MET'}`,
    );
  } finally {
    for (const s of servers) s.close();
    await runtime.close();
    await db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]).catch(() => undefined);
    await db.destroy();
  }
}

await main();
