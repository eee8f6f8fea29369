/**
 * bench/change-log: what the change log costs and how fast it is read, on PostgreSQL, in one run.
 * - First load: a synthetic REAXML feed ingested as the worker runs it (stored feed event in,
 *   result out) into an empty table, with the change log's triggers on and off in turns over
 *   BENCH_ROUNDS rounds (default 3); the best of each. Target: on <= 1.05 x off.
 * - 1-listing pushes: batches of BENCH_PUSHES (default 200) feeds of one changed listing each,
 *   processed as the worker processes them, into one loaded table, the log on and off in turns
 *   over 2 x BENCH_ROUNDS batches each; the median of the batches' p50. Target: on <= 1.05 x off.
 * - EntityEvent: one client reads every event of the load through the RESO Web API (the web app
 *   in this process, pages of 1,000 following @odata.nextLink). Target: >= 20,000 events/s.
 * - The log's size after the load, and after a purge of everything older than its window.
 *
 *   npm run bench:change-log                 # 50,000 listings
 *   npm run bench:change-log -- 20000        # a quicker run
 * Uses BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), in a scratch schema.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createApp } from '../api/app.js';
import { purgeChangeLog, sequenceChanges } from '../db/change-log.js';
import { createDb, createReadDb, type Db, migrateToLatest } from '../db/knex.js';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { warmGazetteers } from '../pipeline/geocode.js';
import { closeReadThreads, configureReadThreads } from '../pipeline/reaxml/read-threads.js';
import { InProcessQueue } from '../workers/in-process-queue.js';
import { processFeed } from '../workers/ingest/process-feed.js';
import { measure, readFeedFile, storeSyntheticFeed, syntheticListing, writeSyntheticFeed } from './synthetic-feed.js';

const LISTINGS = Number(process.argv[2] ?? 50_000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const PUSHES = Number(process.env.BENCH_PUSHES ?? 200);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TRIGGERS: Record<string, string[]> = {
  listings: ['change_log_insert', 'change_log_update'],
  directory_agents: ['change_log_insert', 'change_log_update', 'change_log_delete'],
  directory_offices: ['change_log_insert', 'change_log_update', 'change_log_delete'],
};
const deps = (db: Db) => ({ db, breaker: { ratio: 0.2, min: 5 }, logger: createLogger('silent') });

async function setLog(db: Db, on: boolean): Promise<void> {
  for (const [table, names] of Object.entries(TRIGGERS))
    for (const name of names) await db.raw(`ALTER TABLE ${table} ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${name}`);
}

/** Stores a feed body (a file's stream, or one push's bytes) as a feed event; returns its id. */
const storeBody = (db: Db, body: AsyncIterable<Buffer> | Buffer): Promise<string> =>
  storeSyntheticFeed(db, Buffer.isBuffer(body) ? (Readable.from([body]) as AsyncIterable<Buffer>) : body);

async function empty(db: Db): Promise<void> {
  for (const table of ['listings', 'directory_agents', 'directory_offices', 'change_log']) await db(table).delete();
  await db('change_log_head').update({ last_seq: 0, complete_from: 1 });
  await db.raw('VACUUM ANALYZE listings');
  await db.raw('VACUUM ANALYZE change_log');
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');

/** PUSHES 1-listing feeds, each changing one stored listing's price; the latency of each. Batch numbers must grow. */
async function pushes(db: Db, round: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < PUSHES; i += 1) {
    const version = round * PUSHES + i + 1;
    const stamp = `2025-01-01-${String(Math.floor(version / 3600) % 24).padStart(2, '0')}:${String(Math.floor(version / 60) % 60).padStart(2, '0')}:${String(version % 60).padStart(2, '0')}`;
    const listing = syntheticListing(i, version).replace(/modTime="[^"]+"/, `modTime="${stamp}"`);
    const id = await storeBody(db, Buffer.from(`<?xml version="1.0"?><propertyList>${listing}</propertyList>`));
    const m = await measure(() => processFeed(deps(db), id));
    times.push(m.seconds * 1000);
  }
  return times;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-change-log-'));
  const schema = `bench_change_log_${process.pid}`;
  const db = createDb({ databaseUrl: DATABASE_URL, dataDir: dir, schema });
  const config = loadConfig({ DATABASE_URL, LOG_LEVEL: 'silent', RESO_RATE_LIMIT: '100000000' });
  try {
    await migrateToLatest(db);
    warmGazetteers();
    configureReadThreads(config.readThreads);
    const feedPath = join(dir, 'feed.xml');
    await writeSyntheticFeed(feedPath, LISTINGS);
    console.log(`bench:change-log  ${LISTINGS} listings, ${ROUNDS} rounds, ${PUSHES} pushes a round, PostgreSQL ${DATABASE_URL.replace(/\/\/[^@]*@/, '//')}`);

    const load: Record<'on' | 'off', number[]> = { on: [], off: [] };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const mode of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        await empty(db);
        await setLog(db, mode === 'on');
        const id = await storeBody(db, readFeedFile(feedPath));
        const m = await measure(() => processFeed(deps(db), id));
        load[mode].push(m.seconds);
        console.log(`  round ${round + 1}, log ${mode.padEnd(3)}: first load ${m.seconds.toFixed(2)} s`);
      }
    }
    const loadRatio = Math.min(...load.on) / Math.min(...load.off);
    console.log(
      `first load     log on ${Math.min(...load.on).toFixed(2)} s, off ${Math.min(...load.off).toFixed(2)} s: ${loadRatio.toFixed(3)} x  (target <= 1.05)  ${verdict(loadRatio <= 1.05)}`,
    );

    // Pushes on one loaded table, the log switched on and off between batches (a load with the log
    // off leaves the database less to do afterwards, which would flatter the pushes after it).
    await empty(db);
    await setLog(db, true);
    await processFeed(deps(db), await storeBody(db, readFeedFile(feedPath)));
    await sequenceChanges(db);
    const push: Record<'on' | 'off', number[]> = { on: [], off: [] };
    // Each batch sends newer versions than the last (an older one would be ignored as stale).
    let batch = 0;
    for (let round = 0; round < 2 * ROUNDS; round += 1) {
      for (const mode of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        await setLog(db, mode === 'on');
        push[mode].push(median(await pushes(db, batch)));
        batch += 1;
      }
    }
    await setLog(db, true);
    for (const mode of ['off', 'on'] as const)
      console.log(`  pushes, log ${mode.padEnd(3)}: p50 of each batch ${push[mode].map((t) => t.toFixed(2)).join(', ')} ms`);
    const pushRatio = median(push.on) / median(push.off);
    console.log(
      `1-listing push log on ${median(push.on).toFixed(2)} ms, off ${median(push.off).toFixed(2)} ms (median of ${2 * ROUNDS} batches' p50): ${pushRatio.toFixed(3)} x  (target <= 1.05)  ${verdict(pushRatio <= 1.05)}`,
    );

    await sequenceChanges(db);
    // As autovacuum would after the sequencer's updates (this bench's server may run without it).
    await db.raw('VACUUM ANALYZE change_log');
    const [{ n }] = await db('change_log').whereNotNull('seq').count({ n: '*' });
    const events = Number(n);

    // EntityEvent through the web app, as one replicating client reads it.
    const readDb = createReadDb(db, { databaseUrl: DATABASE_URL, dataDir: dir, schema, readTimeoutMs: 30_000, preparedStatements: 64 });
    const noQueue = new InProcessQueue(async () => undefined, {
      attempts: 1,
      backoffMs: 1000,
      concurrency: 1,
      onGiveUp: async () => undefined,
      onError: () => undefined,
    });
    const app = createApp({ config, logger: createLogger('silent'), db, readDb, ingestQueue: noQueue, leadQueue: noQueue });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const port = (server.address() as { port: number }).port;
    let read = 0;
    const walk = await measure(async () => {
      let next: string | undefined = `http://127.0.0.1:${port}/v1/reso/EntityEvent?$filter=EntityEventSequence%20gt%200&$top=100000000`;
      while (next) {
        const res = await fetch(next, { headers: { prefer: 'odata.maxpagesize=1000' } });
        const body = (await res.json()) as { value: unknown[]; '@odata.nextLink'?: string };
        read += body.value.length;
        next = body['@odata.nextLink'];
      }
    });
    server.close();
    await readDb.destroy();
    const rate = read / walk.seconds;
    console.log(
      `EntityEvent    ${read} of ${events} events in ${walk.seconds.toFixed(2)} s: ${Math.round(rate)} events/s  (target >= 20000)  ${verdict(rate >= 20_000 && read === events)}`,
    );

    const size = async () => (await db.raw(`SELECT pg_total_relation_size('change_log') AS bytes`)).rows[0].bytes as number;
    console.log(`log size       ${events} rows, ${(Number(await size()) / 1048576).toFixed(1)} MB with its indexes`);
    await db('change_log').update({ sequenced_at: db.raw("now() - interval '31 days'") });
    const purged = await purgeChangeLog(db, 30);
    const [{ left }] = await db('change_log').count({ left: '*' });
    console.log(`after a purge  ${purged} purged, ${left} kept (each live listing's first-shown row, for its history)`);
  } finally {
    await closeReadThreads();
    await db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]).catch(() => undefined);
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
