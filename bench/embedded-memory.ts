/**
 * bench/embedded-memory: the resident memory of the embedded all-in-one process (`npm start`, no
 * configuration) once idle, against the target of 250 MB: on its first start (a new data folder,
 * whose PGlite initdb runs in the process) and on a restart, with PostgreSQL's default
 * shared_buffers (128MB) and with EMBEDDED_SHARED_BUFFERS=16MB. Idle is 15 s after "listening"
 * (the first sweep and the lazy loads done). RSS is read from /proc (Linux).
 *
 *   npm run bench:embedded-memory
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../lib/free-port.js';
import { startRole, stopRole } from './roles.js';

const TARGET_MB = 250;
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 15_000);

const rssMb = (pid: number) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)![1]) / 1024;

async function idleRss(dataDir: string, sharedBuffers: string | null): Promise<number> {
  const env: Record<string, string> = { DATA_DIR: dataDir, PORT: String(await freePort()) };
  if (sharedBuffers) env.EMBEDDED_SHARED_BUFFERS = sharedBuffers;
  const child = await startRole('main.js', env, 'listening');
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const mb = rssMb(child.pid!);
  await stopRole(child);
  return mb;
}

console.log(`embedded all-in-one, resident memory ${IDLE_MS / 1000} s after listening (target ≤ ${TARGET_MB} MB)`);
for (const sharedBuffers of [null, '16MB']) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-embedded-memory-'));
  try {
    const first = await idleRss(dataDir, sharedBuffers);
    const restart = await idleRss(dataDir, sharedBuffers);
    const label = `shared_buffers ${sharedBuffers ?? '128MB (default)'}`;
    for (const [when, mb] of [
      ['first start', first],
      ['restart', restart],
    ] as const)
      console.log(`${label.padEnd(32)} ${when.padEnd(12)} ${mb.toFixed(0).padStart(5)} MB   ${(mb / TARGET_MB).toFixed(2)} × target`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
