/**
 * bench/read-shares: what a cheap public read (a locality search) waits while ten costly keyword
 * searches (`q=home red&sort=relevance`) run at once, on PostgreSQL through the service's read
 * pool (docs/reads.md, "Shares of the read pool"). The synthetic listings of
 * bench/synthetic-listings.ts are given descriptions of a few hundred words, a quarter of them
 * with "red" (every headline says "Home"), so the keyword search ranks tens of thousands of
 * matches, as on a portal's real text.
 *
 *   npm run bench:read-shares                  # 284,665 listings
 *   npm run bench:read-shares -- 200000
 * Uses BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), in a scratch schema
 * dropped at the end; BENCH_SCHEMA=name keeps the listings in that schema instead, and a later run
 * with the same name and count reuses them. BENCH_SECONDS (default 20): how long the ten keyword
 * clients run.
 */
import type { Server } from 'node:http';
import { allOffices, refreshDirectory } from '../db/directory.js';
import { createDb, type Db, migrateToLatest } from '../db/knex.js';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { startRuntime } from '../workers/runtime.js';
import { serveReads } from './serve-reads.js';
import { LOAD_TIMEOUT_MS, loadSyntheticListings } from './synthetic-listings.js';

const LISTINGS = Number(process.argv[2] ?? 284_665);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const KEYWORD_CLIENTS = 10;
const KEYWORD = '/v1/listings?q=home%20red&sort=relevance&limit=24';
const LOCALITY = '/v1/listings?locality=Richmond%207&limit=24';
/** How often the cheap client asks while the keyword clients run. */
const CHEAP_EVERY_MS = 250;

/** Sentences a description is made of, picked by the listing's hash; "red" is in a quarter of them. */
const SENTENCES = [
  'A red brick home on a quiet tree-lined street, close to schools, shops and the station.',
  'Freshly painted in soft grey with new carpet throughout and a renovated kitchen with stone benches.',
  'The open plan living and dining area flows to a covered deck and a level, north-facing garden.',
  'Three generous bedrooms, the main with a walk-in robe and an ensuite, and a family bathroom.',
  'Polished timber floors, high ceilings and ornate cornices keep the character of the period.',
  'Ducted heating and split system cooling keep the house comfortable all year round.',
  'A double garage with internal access, a workshop and plenty of storage for the family.',
  'Walk to the beach, the cafes of the village and the weekend farmers market.',
  'Investors will value the strong rental history and the low maintenance of the property.',
  'The red gum deck overlooks a sparkling pool and established gardens with fruit trees.',
  'Solar panels, a water tank and double glazing make running costs low.',
  'Inspect this weekend or call the agent today to arrange a private viewing.',
];

/** Gives each listing a description of about eight sentences (a few hundred words). */
async function describe(db: Db): Promise<void> {
  const picks = Array.from({ length: 8 }, (_v, i) => `(?::text[])[1 + abs(hashtext(listing_key || '${i}')) % ${SENTENCES.length}]`);
  await db.raw(
    `UPDATE listings SET data = jsonb_set(data, '{description}', jsonb_build_object('en-AU', ${picks.join(" || ' ' || ")}))`,
    picks.map(() => SENTENCES),
  );
  await db.raw('VACUUM ANALYZE listings');
}

interface Timed {
  status: number;
  ms: number;
}

async function timed(url: string): Promise<Timed> {
  const started = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const statuses = (runs: Timed[]) => {
  const counts = new Map<number, number>();
  for (const r of runs) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${n} x ${status}`).join(', ');
};
const summary = (name: string, runs: Timed[]) =>
  `${name.padEnd(34)} ${String(runs.length).padStart(4)} requests  p50 ${percentile(
    runs.map((r) => r.ms),
    50,
  ).toFixed(0)} ms  p99 ${percentile(
    runs.map((r) => r.ms),
    99,
  ).toFixed(0)} ms  max ${Math.max(...runs.map((r) => r.ms)).toFixed(0)} ms  (${statuses(runs)})`;

async function main() {
  const kept = process.env.BENCH_SCHEMA;
  const schema = kept ?? `bench_shares_${process.pid}`;
  const db = createDb({ databaseUrl: DATABASE_URL, dataDir: '', schema, statementTimeoutMs: LOAD_TIMEOUT_MS });
  const config = loadConfig({ DATABASE_URL, LOG_LEVEL: 'silent' });
  const logger = createLogger('silent');
  const runtime = await startRuntime(config, logger, db, { consume: false });
  let readDb: Db | null = null;
  let server: Server | null = null;
  try {
    await migrateToLatest(db);
    const [{ n: present }] = await db('listings').count({ n: '*' });
    if (kept && Number(present) === LISTINGS) {
      console.log(`reusing the ${LISTINGS} listings kept in schema ${schema}`);
    } else {
      const started = Date.now();
      if (Number(present) > 0) await db('listings').delete();
      await loadSyntheticListings(db, LISTINGS);
      await describe(db);
      await refreshDirectory(db, await allOffices(db));
      console.log(`loaded, described and indexed ${LISTINGS} listings in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    const served = await serveReads(db, { databaseUrl: DATABASE_URL, schema, config, logger, queues: runtime });
    ({ readDb, server } = served);
    const base = served.url;

    const first = await fetch(`${base}${KEYWORD}`);
    const body = (await first.json()) as { total?: number; error?: string };
    console.log(`${KEYWORD}: ${first.status} ${body.total !== undefined ? `total ${body.total}` : body.error}`);

    // The cheap read on its own.
    const alone: Timed[] = [];
    for (let i = 0; i < 40; i += 1) alone.push(await timed(`${base}${LOCALITY}`));
    const keywordAlone: Timed[] = [];
    for (let i = 0; i < 3; i += 1) keywordAlone.push(await timed(`${base}${KEYWORD}`));

    // Ten keyword clients, each asking again as soon as it has its answer, and the cheap client
    // asking every CHEAP_EVERY_MS beside them.
    const until = Date.now() + SECONDS * 1000;
    const keyword: Timed[] = [];
    const beside: Timed[] = [];
    const keywordClient = async () => {
      while (Date.now() < until) keyword.push(await timed(`${base}${KEYWORD}`));
    };
    const cheapClient = async () => {
      // Let the keyword searches take the connections first.
      await new Promise((resolve) => setTimeout(resolve, 500));
      while (Date.now() < until) {
        const next = Date.now() + CHEAP_EVERY_MS;
        beside.push(await timed(`${base}${LOCALITY}`));
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
      }
    };
    await Promise.all([...Array.from({ length: KEYWORD_CLIENTS }, keywordClient), cheapClient()]);

    console.log(`${LISTINGS} listings; read pool of 5, DB_READ_TIMEOUT_MS ${config.dbReadTimeoutMs}`);
    console.log(summary('locality alone', alone));
    console.log(summary('keyword alone', keywordAlone));
    console.log(summary(`keyword, ${KEYWORD_CLIENTS} at once`, keyword));
    console.log(summary('locality beside them', beside));
  } finally {
    server?.close();
    await runtime.close();
    await readDb?.destroy();
    if (!kept) await db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]).catch(() => undefined);
    await db.destroy();
  }
}

await main();
