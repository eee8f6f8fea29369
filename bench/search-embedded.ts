/**
 * bench/search-embedded: the portal search families (bench/search-families.ts) on the embedded
 * database (PGlite, the default with no DATABASE_URL), 100,000 synthetic listings by default,
 * through the service's own HTTP routes. PGlite serves one query at a time, so each family is
 * asked BENCH_REPEAT times (default 20) one after another and its latencies printed; every answer
 * must be a 200. The target here is that the same queries work at this size.
 *
 *   npm run bench:search-embedded                 # 100,000 listings (loading takes a few minutes)
 *   npm run bench:search-embedded -- 20000        # a quicker run
 * Uses a fresh data directory under the system's temporary directory, removed afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../api/app.js';
import { allOffices, refreshDirectory } from '../db/directory.js';
import { createDb, migrateToLatest } from '../db/knex.js';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { startRuntime } from '../workers/runtime.js';
import { cursorPage50, FAMILIES } from './search-families.js';
import { loadSyntheticListings } from './synthetic-listings.js';

const LISTINGS = Number(process.argv[2] ?? 100_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 20);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-search-embedded-'));
  const db = createDb({ databaseUrl: null, dataDir });
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const logger = createLogger('silent');
  const runtime = await startRuntime(config, logger, db, { consume: false });
  try {
    await migrateToLatest(db);
    const started = Date.now();
    await loadSyntheticListings(db, LISTINGS);
    await refreshDirectory(db, await allOffices(db));
    console.log(`PGlite: loaded and indexed ${LISTINGS} listings in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    const app = createApp({ config, logger, db, ingestQueue: runtime.ingestQueue, leadQueue: runtime.leadQueue });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const families = [...FAMILIES, { name: 'cursor page 50', path: await cursorPage50(url), plain: true }];
      console.log(`each family ${REPEAT} times in a row: p50, p99, the first request (it waits for the total), and the total`);
      for (const family of families) {
        const ms: number[] = [];
        let total: number | undefined;
        for (let i = 0; i < REPEAT; i += 1) {
          const t = performance.now();
          const res = await fetch(`${url}${family.path}`);
          const body = (await res.json()) as { total?: number; error?: string };
          ms.push(performance.now() - t);
          if (res.status !== 200) throw new Error(`${family.name} answered ${res.status}: ${body.error}`);
          total ??= body.total;
        }
        const first = ms[0];
        ms.sort((a, b) => a - b);
        const fmt = (n: number) => n.toFixed(1).padStart(7);
        console.log(`${family.name.padEnd(28)} p50 ${fmt(percentile(ms, 50))} ms  p99 ${fmt(percentile(ms, 99))} ms  first ${fmt(first)} ms  total ${total}`);
      }
    } finally {
      server.close();
    }
  } finally {
    await runtime.close();
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
