/**
 * bench/embedded-memory: the resident memory of the embedded all-in-one process (`npm start`, no
 * configuration) once idle, against the target of 250 MB: on its first start (a new data folder,
 * whose PGlite initdb runs in the process) and on a restart, with PostgreSQL's default
 * shared_buffers (128MB) and with EMBEDDED_SHARED_BUFFERS=16MB. Idle is 15 s after "listening"
 * (the first sweep and the lazy loads done). RSS is read from /proc (Linux). After each pair, PGlite
 * alone in a bare node process on the same folder and settings, idle as long: the floor under it.
 *
 *   npm run bench:embedded-memory
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../lib/free-port.js';
import { memoryOf } from './proc-memory.js';
import { startRole, stopRole } from './roles.js';

const TARGET_MB = 250;
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 15_000);

async function idleRss(dataDir: string, sharedBuffers: string | null): Promise<number> {
  const env: Record<string, string> = { DATA_DIR: dataDir, PORT: String(await freePort()) };
  if (sharedBuffers) env.EMBEDDED_SHARED_BUFFERS = sharedBuffers;
  const child = await startRole('main.js', env, 'listening');
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const mb = memoryOf(child.pid!).rss;
  await stopRole(child);
  return mb;
}

/** PGlite alone in a bare node process on the service's data folder (bench/pglite-alone): the floor under the process. */
async function pgliteAloneRss(dataDir: string, sharedBuffers: string | null): Promise<number> {
  const script = new URL('./pglite-alone.js', import.meta.url).pathname;
  const args = [script, join(dataDir, 'pglite'), String(IDLE_MS), ...(sharedBuffers ? [sharedBuffers] : [])];
  const { stdout } = await promisify(execFile)(process.execPath, args);
  return Number(stdout.trim());
}

console.log(`embedded all-in-one, resident memory ${IDLE_MS / 1000} s after listening (target ≤ ${TARGET_MB} MB)`);
for (const sharedBuffers of [null, '16MB']) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-embedded-memory-'));
  try {
    const first = await idleRss(dataDir, sharedBuffers);
    const restart = await idleRss(dataDir, sharedBuffers);
    const alone = await pgliteAloneRss(dataDir, sharedBuffers);
    const label = `shared_buffers ${sharedBuffers ?? '128MB (default)'}`;
    for (const [when, mb] of [
      ['first start', first],
      ['restart', restart],
      ['PGlite alone', alone],
    ] as const)
      console.log(`${label.padEnd(32)} ${when.padEnd(12)} ${mb.toFixed(0).padStart(5)} MB   ${(mb / TARGET_MB).toFixed(2)} × target`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
