/**
 * bench/worker-memory: the worker role's peak resident memory on a first load, against the target
 * of 400 MB, with the time the load took. The real roles run (web and one worker on PostgreSQL and
 * Redis, in a scratch database); a synthetic REAXML feed of 50,000 listings (about 110 MB) is
 * pushed to the web role and the worker's peak is read from the kernel (VmHWM in /proc: the most
 * the process ever held, start included) once the feed is done. The listings are emptied between
 * rounds and each round starts a fresh worker, so every round is a first load in a new process.
 *
 *   npm run bench:worker-memory              # 50,000 listings, 3 rounds
 *   npm run bench:worker-memory -- 20000     # a smaller feed
 * BENCH_ROUNDS sets the rounds; READ_THREADS, if set, is passed to the roles. Uses BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test;
 * a scratch database is created beside it) and BENCH_REDIS_URL (default redis://127.0.0.1:6379).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../db/knex.js';
import { freePort } from '../lib/free-port.js';
import { memoryOf } from './proc-memory.js';
import { scratchDatabase, startRole, stopRole } from './roles.js';
import { SYNTHETIC_OFFICES, writeSyntheticFeed } from './synthetic-feed.js';

const LISTINGS = Number(process.argv[2] ?? 50000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const TARGET_MB = 400;
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const OPERATOR_TOKEN = 'bench-operator-token-0123456789';

/** A key for the synthetic offices (the API gives a key at most 100; the bench widens it in the database). */
async function createKey(base: string, db: ReturnType<typeof createDb>): Promise<string> {
  const res = await fetch(`${base}/v1/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ clientName: 'Bench CRM', alertEmail: 'alerts@agency.example', officeIds: SYNTHETIC_OFFICES.slice(0, 100) }),
  });
  if (res.status !== 201) throw new Error(`creating a key answered ${res.status}: ${await res.text()}`);
  const { id, key } = (await res.json()) as { id: string; key: string };
  await db('feed_keys').where({ id }).update({ office_ids: SYNTHETIC_OFFICES });
  return key;
}

/** Pushes the feed and waits until its event is done; returns the seconds from start to finish. */
async function load(base: string, key: string, body: Blob, db: ReturnType<typeof createDb>): Promise<{ seconds: number; summary: unknown }> {
  const res = await fetch(`${base}/v1/feeds`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/xml' },
    body,
  });
  const answer = (await res.json()) as { feedId?: string; error?: string };
  if (!answer.feedId) throw new Error(`the push answered ${res.status}: ${JSON.stringify(answer)}`);
  for (;;) {
    const event = await db('feed_events').where({ id: answer.feedId }).first('status', 'started_at', 'finished_at', 'result');
    if (event.status === 'done' || event.status === 'failed') {
      if (event.status !== 'done') throw new Error(`the feed ${event.status}: ${JSON.stringify(event.result)}`);
      return { seconds: (event.finished_at.getTime() - event.started_at.getTime()) / 1000, summary: event.result.summary };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-worker-memory-'));
  let scratch: Awaited<ReturnType<typeof scratchDatabase>> | null = null;
  let web: Awaited<ReturnType<typeof startRole>> | null = null;
  try {
    const feedPath = join(dir, 'feed.xml');
    await writeSyntheticFeed(feedPath, LISTINGS);
    const mb = (await stat(feedPath)).size / 1e6;
    const body = new Blob([await readFile(feedPath)]);
    scratch = await scratchDatabase(DATABASE_URL, `bench_worker_memory_${process.pid}`);
    const port = await freePort();
    const env = {
      DATABASE_URL: scratch.url,
      REDIS_URL,
      PORT: String(port),
      OPERATOR_TOKEN,
      LOG_LEVEL: 'info',
      FEED_MAX_BYTES: String(body.size + (1 << 20)),
      ...(process.env.READ_THREADS ? { READ_THREADS: process.env.READ_THREADS } : {}),
    };
    web = await startRole('api/main.js', env, '"listening"');
    const base = `http://127.0.0.1:${port}`;
    const db = createDb({ databaseUrl: scratch.url, dataDir: '' });
    const key = await createKey(base, db);
    console.log(`first load of ${LISTINGS} listings (${mb.toFixed(1)} MB of REAXML) by a fresh worker (web + 1 worker, PostgreSQL, Redis), ${ROUNDS} rounds`);
    const peaks: number[] = [];
    try {
      for (let r = 0; r < ROUNDS; r += 1) {
        await db('listings').delete();
        await db('directory_agents').delete();
        await db('directory_offices').delete();
        await db.raw('VACUUM ANALYZE listings');
        const worker = await startRole('workers/main.js', env, '"worker started"');
        try {
          const atStart = memoryOf(worker.pid!).rss;
          const { seconds, summary } = await load(base, key, body, db);
          const { peak, rss } = memoryOf(worker.pid!);
          peaks.push(peak);
          console.log(
            `  round ${r + 1}: ${seconds.toFixed(2)} s (${(LISTINGS / seconds).toFixed(0)} listings/s)  worker RSS at start ${atStart.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, after ${rss.toFixed(0)} MB  ${JSON.stringify(summary)}`,
          );
        } finally {
          await stopRole(worker);
        }
      }
    } finally {
      await db.destroy();
    }
    const worst = Math.max(...peaks);
    console.log(`worker peak RSS on a first load: ${worst.toFixed(0)} MB (target ≤ ${TARGET_MB} MB) ${worst <= TARGET_MB ? 'MET' : 'NOT MET'}`);
  } finally {
    if (web) await stopRole(web);
    rmSync(dir, { recursive: true, force: true });
    await scratch?.drop().catch(() => undefined);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
