/**
 * bench/many-feeds: many small feeds at once, end to end, as production runs them: a web process
 * and BullMQ worker processes on PostgreSQL and Redis. 200 feeds of 100 listings each, from 20 feed
 * keys (one office each), are POSTed to /v1/feeds all at once (FEED_SYNC_WAIT_MS=0: each answer
 * comes once its feed is stored); the run ends when every feed event is done. Run with 1 and then 2
 * worker processes, each on a fresh database. Prints listings/s end to end, the p50/p99 of the
 * POSTs, the ratio 2 workers / 1 worker, and the CPU each part used over the run (PostgreSQL, the
 * workers, web, Redis, from /proc) with where the ceiling is; checks that every listing is stored
 * exactly once and that no feed failed or had an invalid listing.
 *
 *   npm run bench:many-feeds
 *   npm run bench:many-feeds -- 400 50    # feeds, listings per feed
 * Uses BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch database is
 * created beside it) and BENCH_REDIS_URL (default redis://127.0.0.1:6379).
 */
import type { ChildProcess } from 'node:child_process';
import { createFeedKey } from '../db/feed-keys.js';
import { createDb, type Db } from '../db/knex.js';
import { freePort } from '../lib/free-port.js';
import { cpuLines, cpuMeter, pidsNamed } from './process-cpu.js';
import { scratchDatabase, startRole, stopRole } from './roles.js';

const FEEDS = Number(process.argv[2] ?? 200);
const PER_FEED = Number(process.argv[3] ?? 100);
const KEYS = 20;
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

function feedXml(feed: number, office: string): string {
  let xml = '<?xml version="1.0" encoding="utf-8"?><propertyList>';
  for (let i = 0; i < PER_FEED; i += 1) {
    xml +=
      `<residential modTime="2024-03-01-10:00:00" status="current"><agentID>${office}</agentID><uniqueID>F${feed}-L${i}</uniqueID>` +
      `<headline>Home ${i} of feed ${feed}</headline><description>Light-filled rooms and a north-facing garden.</description><price>${500000 + i}</price>` +
      `<address><streetNumber>${i}</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address>` +
      `<listingAgent id="1"><name>Agent ${feed % 7}</name><email>agent${feed % 7}@${office.toLowerCase()}.example</email></listingAgent>` +
      `<images><img id="m" url="https://img.example.com/${feed}/${i}/m.jpg"/></images></residential>`;
  }
  return `${xml}</propertyList>`;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function run(
  workers: number,
): Promise<{ seconds: number; listingsPerSecond: number; p50: number; p99: number; cpu: ReturnType<ReturnType<typeof cpuMeter>['stop']> }> {
  const scratch = await scratchDatabase(DATABASE_URL, `bench_many_${process.pid}_${workers}`);
  const port = await freePort();
  const env = {
    DATABASE_URL: scratch.url,
    REDIS_URL,
    PORT: String(port),
    FEED_SYNC_WAIT_MS: '0',
    // Every feed is POSTed at once: the upload limits (32 in flight, 4 per key by default) would
    // answer most of them 503/429, which is not what this measures.
    FEED_UPLOADS_TOTAL: String(FEEDS),
    FEED_UPLOADS_PER_KEY: String(FEEDS),
    LOG_LEVEL: 'info',
  };
  const roles: ChildProcess[] = [];
  let db: Db | null = null;
  try {
    roles.push(await startRole('api/main.js', env, '"listening"'));
    for (let w = 0; w < workers; w += 1) roles.push(await startRole('workers/main.js', env, '"worker started"'));
    db = createDb({ databaseUrl: scratch.url, dataDir: '' });
    const keys: string[] = [];
    for (let k = 0; k < KEYS; k += 1) {
      keys.push((await createFeedKey(db, { clientName: `CRM ${k}`, alertEmail: 'alerts@agency.example', officeIds: [`OFFICE${k}`], status: 'active' })).secret);
    }
    const bodies = Array.from({ length: FEEDS }, (_, f) => JSON.stringify({ xml: feedXml(f, `OFFICE${f % KEYS}`), context: { currency: 'AUD' } }));

    const latencies: number[] = [];
    const [web, ...workerRoles] = roles;
    const meter = cpuMeter({
      PostgreSQL: () => pidsNamed('postgres'),
      [workers > 1 ? 'workers' : 'worker']: () => workerRoles.map((r) => r.pid!),
      web: () => [web.pid!],
      Redis: () => pidsNamed('redis-server'),
    });
    meter.start();
    const start = performance.now();
    const answers = await Promise.all(
      bodies.map(async (body, f) => {
        const sent = performance.now();
        const res = await fetch(`http://127.0.0.1:${port}/v1/feeds`, {
          method: 'POST',
          headers: { authorization: `Bearer ${keys[f % KEYS]}`, 'content-type': 'application/json' },
          body,
        });
        await res.arrayBuffer();
        latencies.push(performance.now() - sent);
        return res.status;
      }),
    );
    const refused = answers.filter((status) => status !== 200 && status !== 202);
    if (refused.length > 0) throw new Error(`${refused.length} POSTs were refused: ${[...new Set(refused)].join(', ')}`);
    for (;;) {
      const rows = await db('feed_events').select('status').count({ n: '*' }).groupBy('status');
      const by = Object.fromEntries((rows as { status: string; n: string }[]).map((r) => [r.status, Number(r.n)]));
      if ((by.failed ?? 0) > 0) throw new Error(`${by.failed} feeds failed`);
      if ((by.done ?? 0) === FEEDS) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - start) / 1000;
    const cpu = meter.stop();

    const [{ n: stored, keys: distinct }] = await db('listings').select(db.raw('count(*)::int AS n'), db.raw('count(DISTINCT listing_key)::int AS keys'));
    const results = await db('feed_events').select('result');
    const invalid = results.reduce((n, r) => n + r.result.counts.invalid, 0);
    const inserted = results.reduce((n, r) => n + r.result.summary.inserted, 0);
    const expected = FEEDS * PER_FEED;
    if (stored !== expected || distinct !== expected || inserted !== expected || invalid !== 0) {
      throw new Error(`expected ${expected} listings stored once each; stored ${stored} (${distinct} keys), inserted ${inserted}, invalid ${invalid}`);
    }
    latencies.sort((a, b) => a - b);
    return { seconds, listingsPerSecond: expected / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpu };
  } finally {
    await Promise.all(roles.map(stopRole));
    await db?.destroy();
    await scratch.drop();
  }
}

async function main() {
  console.log(`${FEEDS} feeds x ${PER_FEED} listings from ${KEYS} keys, POSTed at once; web + BullMQ workers on PostgreSQL and Redis`);
  const figures: Record<number, Awaited<ReturnType<typeof run>>> = {};
  for (const workers of [1, 2]) {
    const f = await run(workers);
    figures[workers] = f;
    console.log(
      `${workers} worker process${workers > 1 ? 'es' : ''}: ${f.listingsPerSecond.toFixed(0).padStart(6)} listings/s end to end (${f.seconds.toFixed(2)} s); POST /v1/feeds p50 ${f.p50.toFixed(0)} ms, p99 ${f.p99.toFixed(0)} ms; every listing stored once, 0 errors`,
    );
    console.log(`  ${cpuLines(f.cpu)}`);
  }
  console.log(`2 workers / 1 worker: ${(figures[2].listingsPerSecond / figures[1].listingsPerSecond).toFixed(2)}`);
  const two = figures[2].cpu;
  const busy = Object.values(two.used).reduce((a, b) => a + b, 0) / (two.wallSeconds * two.cores);
  const [top] = Object.entries(two.used).sort((a, b) => b[1] - a[1]);
  console.log(
    busy > 0.85
      ? `ceiling: the machine (${(busy * 100).toFixed(0)}% of its ${two.cores} cores busy with 2 workers; ${top[0]} takes the most): more workers here only take turns; add cores or machines`
      : `ceiling: not CPU (${(busy * 100).toFixed(0)}% of the cores busy with 2 workers): waiting (locks, round trips) limits it; ${top[0]} uses the most CPU`,
  );
}

await main();
