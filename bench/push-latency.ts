/**
 * bench/push-latency: how long a small push takes to go live, the traffic most CRMs send (one
 * listing per call). 1-listing feeds from 20 keys (one office each) are POSTed at 20, 50 and 100 per
 * second, each rate for BENCH_SECONDS (default 60), against the embedded all-in-one (`npm start`:
 * PGlite and the in-process queue) and against web + 1 worker on PostgreSQL and Redis. For each it
 * prints p50/p99 from the request to its 200 and to the listing answering its public read, and,
 * from the feed events, the time queued (stored to a worker starting it), the time processing, and
 * the time the web role took to answer after the feed was done, and the CPU each process used per
 * push (the web role, the worker, PostgreSQL's backends of the bench's database and its writers,
 * Redis, or the all-in-one process; and this client, which sends the pushes and reads the listings). The first key's office holds 2,000 listings
 * before the pushes start, as a large agency's does, and its pushes are also reported apart.
 * Targets: at 20/s and 50/s p50 <= 15 ms and p99 <= 75 ms to the 200; at 100/s no errors and
 * p99 <= 250 ms; every listing stored once.
 *
 *   npm run bench:push-latency
 *   BENCH_SECONDS=15 npm run bench:push-latency     # a quicker run
 *   BENCH_SETUPS=embedded npm run bench:push-latency  # one setup (embedded or postgres)
 * After each rate it waits until every push answered 200 or 202 is stored, and prints how long
 * that took after the last answer (the queue draining). BENCH_CPU_PROF=<folder> has the service's
 * processes write CPU profiles there.
 * Uses BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch database is
 * created beside it) and BENCH_REDIS_URL (default redis://127.0.0.1:6379).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../db/knex.js';
import type * as Row from '../db/rows.js';
import { freePort } from '../lib/free-port.js';
import { cpuMeter, pidsNamed } from './process-cpu.js';
import { scratchDatabase, startRole, stopRole } from './roles.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const WARM_SECONDS = 5;
const RATES = [20, 50, 100];
const KEYS = 20;
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const OPERATOR_TOKEN = 'bench-operator-token-0123456789';
/** Which setups to run: BENCH_SETUPS=embedded or =postgres for one (default both). */
const SETUPS = (process.env.BENCH_SETUPS ?? 'embedded,postgres').split(',');

interface Sent {
  /** Answered 200: the feed was done in time. */
  ok: boolean;
  /** Stored: answered 200, or 202 (stored, not done within the wait); the listing must be stored once either way. */
  stored: boolean;
  /** No answer reached the client (it gave up, or the connection failed): the push may or may not have been stored. */
  unanswered?: true;
  /** The answer's status, or the client's error code when none came. */
  status: string;
  feedId: string | null;
  toAnswerMs: number;
  toPublicMs: number | null;
  answeredAt: number;
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

const listingElement = (office: string, uniqueId: string) =>
  `<residential modTime="2024-03-01-10:00:00" status="current"><agentID>${office}</agentID><uniqueID>${uniqueId}</uniqueID>` +
  `<headline>Home ${uniqueId}</headline><description>Light-filled rooms.</description><price>650000</price>` +
  '<address><streetNumber>1</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address></residential>';
const listingXml = (office: string, uniqueId: string) =>
  `<?xml version="1.0" encoding="utf-8"?><propertyList>${listingElement(office, uniqueId)}</propertyList>`;

/**
 * The first key's office holds this many listings before the pushes start, as a large agency's
 * does: every office's directory row is computed from all its public listings, so its pushes show
 * what that costs (reported apart).
 */
const LARGE_OFFICE_LISTINGS = 2000;

/** Gives PUSH0 its LARGE_OFFICE_LISTINGS listings in one feed, and waits until the last is public. */
async function fillLargeOffice(base: string, key: string): Promise<void> {
  const ids = Array.from({ length: LARGE_OFFICE_LISTINGS }, (_, i) => `large-${i}`);
  const res = await fetch(`${base}/v1/feeds`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/xml' },
    body: `<?xml version="1.0" encoding="utf-8"?><propertyList>${ids.map((id) => listingElement('PUSH0', id)).join('')}</propertyList>`,
  });
  if (res.status !== 200 && res.status !== 202) throw new Error(`the large office's feed answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
  for (let i = 0; i < 1200; i += 1) {
    if ((await fetch(`${base}/v1/listings/PUSH0/${ids.at(-1)}`)).status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the large office's listings did not become public within 2 minutes");
}

async function keysFor(base: string): Promise<string[]> {
  const keys: string[] = [];
  for (let k = 0; k < KEYS; k += 1) {
    const res = await fetch(`${base}/v1/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ clientName: `CRM ${k}`, alertEmail: 'alerts@agency.example', officeIds: [`PUSH${k}`] }),
    });
    if (res.status !== 201) throw new Error(`creating a key answered ${res.status}: ${await res.text()}`);
    keys.push(((await res.json()) as { key: string }).key);
  }
  return keys;
}

/** One push and the read that finds the listing public. */
async function pushOne(base: string, key: string, office: string, uniqueId: string): Promise<Sent> {
  const sent = performance.now();
  try {
    const res = await fetch(`${base}/v1/feeds`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/xml' },
      body: listingXml(office, uniqueId),
    });
    const body = (await res.json()) as { feedId?: string };
    const toAnswerMs = performance.now() - sent;
    const answeredAt = Date.now();
    const status = String(res.status);
    if (res.status !== 200) return { ok: false, stored: res.status === 202, status, feedId: body.feedId ?? null, toAnswerMs, toPublicMs: null, answeredAt };
    for (let i = 0; i < 400; i += 1) {
      const read = await fetch(`${base}/v1/listings/${office}/${uniqueId}`);
      await read.arrayBuffer();
      if (read.status === 200) return { ok: true, stored: true, status, feedId: body.feedId!, toAnswerMs, toPublicMs: performance.now() - sent, answeredAt };
      await new Promise((r) => setTimeout(r, 5));
    }
    return { ok: true, stored: true, status, feedId: body.feedId!, toAnswerMs, toPublicMs: null, answeredAt };
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    return {
      ok: false,
      stored: false,
      unanswered: true,
      status: code,
      feedId: null,
      toAnswerMs: performance.now() - sent,
      toPublicMs: null,
      answeredAt: Date.now(),
    };
  }
}

/** Sends `rate` pushes a second for SECONDS, on a fixed schedule (not waiting for answers). */
async function drive(base: string, keys: string[], rate: number, tag: string, seconds = SECONDS): Promise<Sent[]> {
  const total = rate * seconds;
  const started = performance.now();
  const pending: Promise<Sent>[] = [];
  for (let i = 0; i < total; i += 1) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const k = i % KEYS;
    pending.push(pushOne(base, keys[k], `PUSH${k}`, `${tag}-${i}`));
  }
  return Promise.all(pending);
}

type Timings = { created: Date; started: Date | null; finished: Date | null };

function report(rate: number, results: Sent[], events: Map<string, Timings>): void {
  const ok = results.filter((r) => r.ok);
  const errors = results.length - ok.length;
  const byStatus = new Map<string, number>();
  for (const r of results) if (!r.ok) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
  const errorKinds = [...byStatus].map(([status, n]) => `${status} x${n}`).join(', ');
  const answer = ok.map((r) => r.toAnswerMs);
  const live = ok.flatMap((r) => (r.toPublicMs === null ? [] : [r.toPublicMs]));
  const queued: number[] = [];
  const processing: number[] = [];
  const waited: number[] = [];
  for (const r of ok) {
    const e = r.feedId ? events.get(r.feedId) : undefined;
    if (!e?.started || !e.finished) continue;
    queued.push(e.started.getTime() - e.created.getTime());
    processing.push(e.finished.getTime() - e.started.getTime());
    waited.push(Math.max(0, r.answeredAt - e.finished.getTime()));
  }
  const p = (v: number[]) => `p50 ${percentile(v, 50).toFixed(0).padStart(4)} / p99 ${percentile(v, 99).toFixed(0).padStart(4)} ms`;
  const target = rate <= 50 ? percentile(answer, 50) <= 15 && percentile(answer, 99) <= 75 && errors === 0 : errors === 0 && percentile(answer, 99) <= 250;
  console.log(
    `  ${String(rate).padStart(3)}/s  ${String(results.length).padStart(5)} pushes, ${errors} errors${errors ? ` (${errorKinds})` : ''}  to the 200 ${p(answer)}  to public ${p(live)}  ${target ? 'MET' : 'NOT MET'}`,
  );
  console.log(`           queued ${p(queued)}  processing ${p(processing)}  answered after done ${p(waited)}`);
  // Every KEYS-th push goes to PUSH0, the office of LARGE_OFFICE_LISTINGS listings.
  const large = results.filter((r, i) => i % KEYS === 0 && r.ok).map((r) => r.toAnswerMs);
  console.log(`           pushes to the office of ${LARGE_OFFICE_LISTINGS.toLocaleString('en')} listings (${large.length}): to the 200 ${p(large)}`);
  const accepted = results.filter((r) => r.stored).map((r) => r.toAnswerMs);
  const accepted202 = results.filter((r) => r.status === '202').length;
  const unanswered = results.filter((r) => r.unanswered).length;
  console.log(
    `           answered 200 or 202: ${accepted.length} (${accepted202} of them 202), to the answer ${p(accepted)}; no answer (connection refused or timed out): ${unanswered} (target 0: ${unanswered === 0 ? 'MET' : 'NOT MET'})`,
  );
}

/**
 * Waits until every listing answered 200 or 202 so far is stored (what was accepted has been
 * ingested: the queue has drained); resolves to the seconds that took, or null after 10 minutes.
 */
async function drained(count: () => Promise<{ stored: number }>, sent: number): Promise<number | null> {
  const started = performance.now();
  while (performance.now() - started < 600_000) {
    if ((await count()).stored >= sent) return (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 250));
  }
  return null;
}

/**
 * The CPU each group of processes used per push while a rate ran, in milliseconds: what a push
 * costs whatever else the machine is doing, and which process is the ceiling; and the write
 * system calls each made per push, which the machine's load does not inflate as it does CPU time.
 */
function cpuPerPush(m: ReturnType<ReturnType<typeof cpuMeter>['stop']>, pushes: number): string {
  const parts = Object.entries(m.used).map(([group, s]) => `${group} ${((1000 * s) / pushes).toFixed(1)}`);
  const total = Object.values(m.used).reduce((a, b) => a + b, 0);
  const writes = Object.entries(m.writes).map(([group, n]) => `${group} ${(n / pushes).toFixed(1)}`);
  return (
    `CPU per push (ms): ${parts.join(', ')}; ${((100 * total) / (m.wallSeconds * m.cores)).toFixed(0)}% of the machine's ${m.cores} cores\n` +
    `           write system calls per push (each message sent; the load does not change them): ${writes.join(', ')}`
  );
}

async function measure(
  name: string,
  base: string,
  groups: Record<string, () => number[]>,
  readEvents: () => Promise<Map<string, Timings>>,
  count: () => Promise<{ stored: number; keys: number }>,
  /** Brings the groups' pids up to date before each reading (PostgreSQL's backends are looked up). */
  beforeReading: () => Promise<void> = async () => undefined,
) {
  console.log(`${name}:`);
  const keys = await keysFor(base);
  await fillLargeOffice(base, keys[0]);
  // Warm the path (connections, plans, the JIT) for 5 s before measuring.
  const warm = await drive(base, keys, 20, 'warm', WARM_SECONDS);
  let sent = LARGE_OFFICE_LISTINGS + warm.filter((r) => r.stored).length;
  let unanswered = warm.filter((r) => r.unanswered).length;
  const meter = cpuMeter({ ...groups, 'this client': () => [process.pid] });
  for (const rate of RATES) {
    await beforeReading();
    meter.start();
    const results = await drive(base, keys, rate, `r${rate}`);
    await beforeReading();
    const used = meter.stop();
    sent += results.filter((r) => r.stored).length;
    unanswered += results.filter((r) => r.unanswered).length;
    // Each rate starts with what the one before accepted ingested, so its figures are its own.
    const drainS = await drained(count, sent);
    report(rate, results, await readEvents());
    console.log(`           ${cpuPerPush(used, results.length)}`);
    console.log(`           queue drained ${drainS === null ? 'NOT within 10 minutes' : `${drainS.toFixed(1)} s`} after the last push was answered`);
  }
  const { stored, keys: distinct } = await count();
  // A push whose answer never reached the client (it gave up waiting) may have been stored all the
  // same: nothing is lost, and it is not counted against the check.
  const eachOnce = distinct === stored && stored >= sent && stored <= sent + unanswered;
  console.log(
    `  listings stored: ${stored} (${distinct} distinct) for ${sent} pushes answered 200 or 202${unanswered ? ` and ${unanswered} the client had no answer to (${stored - sent} of them stored)` : ''}: ${eachOnce ? 'each once' : 'NOT each once'}`,
  );
}

/** The upload limits both setups run with: high enough that no push is refused for them. */
const LIMITS = { FEED_UPLOADS_PER_KEY: '100', FEED_UPLOADS_TOTAL: '1000' };

/** The embedded all-in-one: its database is inside the process, so the feed events are read over the admin API. */
async function measureEmbedded(dataDir: string, roles: ChildProcess[]): Promise<void> {
  const port = await freePort();
  const embedded = `http://127.0.0.1:${port}`;
  roles.push(await startRole('main.js', { DATA_DIR: dataDir, PORT: String(port), OPERATOR_TOKEN, LOG_LEVEL: 'info', ...LIMITS }, '"listening"'));
  const adminGet = async (path: string) => (await fetch(`${embedded}${path}`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).json();
  const embeddedEvents = async () => {
    const events = new Map<string, Timings>();
    for (let offset = 0; ; offset += 200) {
      const page = (await adminGet(`/v1/admin/feeds?limit=200&offset=${offset}`)) as {
        feeds: { feedId: string; createdAt: string; startedAt?: string; finishedAt: string | null }[];
      };
      for (const f of page.feeds)
        events.set(f.feedId, {
          created: new Date(f.createdAt),
          started: f.startedAt ? new Date(f.startedAt) : null,
          finished: f.finishedAt ? new Date(f.finishedAt) : null,
        });
      if (page.feeds.length < 200 || offset >= 9800) break;
    }
    return events;
  };
  const all = roles[0].pid!;
  await measure('embedded all-in-one (PGlite, in-process queue)', embedded, { 'all-in-one': () => [all] }, embeddedEvents, async () => {
    const stats = (await adminGet('/v1/admin/stats')) as { listings: { total: number } };
    return { stored: stats.listings.total, keys: stats.listings.total };
  });
  await stopRole(roles.pop()!);
}

/** Web + 1 worker on a scratch PostgreSQL database and Redis. */
async function measurePostgres(roles: ChildProcess[]): Promise<void> {
  const scratch = await scratchDatabase(DATABASE_URL, `bench_push_${process.pid}`);
  const webPort = await freePort();
  const env = { DATABASE_URL: scratch.url, REDIS_URL, PORT: String(webPort), OPERATOR_TOKEN, LOG_LEVEL: 'info', ...LIMITS };
  const db = createDb({ databaseUrl: scratch.url, dataDir: '' });
  try {
    roles.push(await startRole('api/main.js', env, '"listening"'));
    roles.push(await startRole('workers/main.js', env, '"worker started"'));
    const [web, worker] = roles.map((r) => r.pid!);
    // The server may serve other work too (other databases' clients): what is counted is the
    // backends connected to this bench's scratch database and the server's own writers (the WAL
    // writer, which flushes the asynchronous commits, the background writer, the checkpointer).
    let postgres: number[] = [];
    const lookUpBackends = async () => {
      const { rows } = await db.raw(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() OR backend_type IN ('walwriter', 'background writer', 'checkpointer')`,
      );
      postgres = rows.map((r: { pid: number }) => r.pid);
    };
    await measure(
      'web + 1 worker (PostgreSQL, Redis)',
      `http://127.0.0.1:${webPort}`,
      { web: () => [web], worker: () => [worker], postgres: () => postgres, redis: () => pidsNamed('redis-server') },
      async () => {
        const rows = await db('feed_events').select('id', 'created_at', 'started_at', 'finished_at');
        return new Map(
          rows.map((r: Pick<Row.FeedEvent, 'id' | 'created_at' | 'started_at' | 'finished_at'>) => [
            r.id,
            { created: r.created_at, started: r.started_at, finished: r.finished_at },
          ]),
        );
      },
      async () => {
        const [{ n, keys }] = await db('listings').select(db.raw('count(*)::int AS n'), db.raw('count(DISTINCT listing_key)::int AS keys'));
        return { stored: n, keys };
      },
      lookUpBackends,
    );
  } finally {
    await Promise.all(roles.splice(0).map(stopRole));
    await db.destroy();
    await scratch.drop().catch(() => undefined);
  }
}

async function main() {
  console.log(
    `1-listing feeds from ${KEYS} keys at ${RATES.join(', ')} per second, ${SECONDS} s each (targets: 20/s and 50/s p50 <= 15 ms, p99 <= 75 ms; 100/s no errors, p99 <= 250 ms; every push answered, none left without an answer)`,
  );
  const roles: ChildProcess[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-push-'));
  try {
    if (SETUPS.includes('embedded')) await measureEmbedded(dataDir, roles);
    if (SETUPS.includes('postgres')) await measurePostgres(roles);
  } finally {
    await Promise.all(roles.map(stopRole));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
