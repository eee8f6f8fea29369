/**
 * bench/startup: how long each process role takes from being started to being ready, as `npm start`
 * and the Procfile start them (dist/, the roles' V8 flags): the embedded all-in-one (a new data
 * folder, which runs the migrations, and a restart on it), and web and worker on PostgreSQL and
 * Redis (a scratch database, migrated once first). Each is started BENCH_STARTS times (default 5);
 * prints the median and the fastest, from spawn to the role's ready line ("listening", "worker
 * started"). The sftp watcher is left out: it is ready only once an SFTP server answers.
 *
 *   npm run bench:startup
 * Uses BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) and BENCH_REDIS_URL
 * (default redis://127.0.0.1:6379).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, migrateToLatest } from '../db/knex.js';
import { freePort } from '../lib/free-port.js';
import { startRole, stopRole } from './roles.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const STARTS = Number(process.env.BENCH_STARTS ?? 5);

/** Milliseconds from spawning the role to its ready line, then it is stopped. */
async function timeToReady(entry: string, env: Record<string, string>, ready: string): Promise<number> {
  const started = performance.now();
  const child = await startRole(entry, env, ready);
  const ms = performance.now() - started;
  await stopRole(child);
  return ms;
}

async function measure(name: string, once: () => Promise<number>): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < STARTS; i += 1) times.push(await once());
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(`${name.padEnd(44)} median ${median.toFixed(0).padStart(5)} ms   fastest ${times[0].toFixed(0).padStart(5)} ms   (${STARTS} starts)`);
}

async function main() {
  const name = `bench_startup_${process.pid}`;
  const admin = createDb({ databaseUrl: DATABASE_URL, dataDir: '' });
  await admin.raw('CREATE DATABASE ??', [name]);
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  const folders: string[] = [];
  try {
    const migrated = createDb({ databaseUrl: url.toString(), dataDir: '' });
    await migrateToLatest(migrated);
    await migrated.destroy();
    const base = { LOG_LEVEL: 'info', OPERATOR_TOKEN: 'bench-operator-token-0123456789' };
    const embedded = async (dataDir: string) => timeToReady('main.js', { ...base, DATA_DIR: dataDir, PORT: String(await freePort()) }, '"listening"');
    const folder = () => {
      const dir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
      folders.push(dir);
      return dir;
    };

    console.log(`time from start to ready, each role started ${STARTS} times (2 cores; the machine's other work shows in the spread)`);
    await measure('embedded all-in-one, new data folder', () => embedded(folder()));
    const kept = folder();
    await embedded(kept);
    await measure('embedded all-in-one, restart', () => embedded(kept));
    const shared = { ...base, DATABASE_URL: url.toString(), REDIS_URL };
    await measure('web (PostgreSQL + Redis)', async () => timeToReady('api/main.js', { ...shared, PORT: String(await freePort()) }, '"listening"'));
    await measure('worker (PostgreSQL + Redis)', () => timeToReady('workers/main.js', shared, '"worker started"'));
  } finally {
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
    await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [name]);
    await admin.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
