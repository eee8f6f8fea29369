import { appendFileSync, chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Redis } from 'ioredis';
import { migratedEmbeddedFolder, redisUrl } from './service.js';

// A parallel run's worker (mocha --parallel sets MOCHA_WORKER_ID) gets a temporary directory of its
// own, and so do the processes its tests start (test/processes.ts passes TMPDIR on): tests that
// look for what a request left in the temp directory see only their own worker's.
if (process.env.MOCHA_WORKER_ID !== undefined) {
  const own = mkdtempSync(join(tmpdir(), `mocha-worker-${process.env.MOCHA_WORKER_ID}-`));
  // Traversable by other users, as /tmp is: the replica test runs initdb as the postgres user in a
  // folder of its own in here (mkdtemp makes it 0700, for root alone).
  chmodSync(own, 0o755);
  process.env.TMPDIR = own;
  process.once('exit', () => rmSync(own, { recursive: true, force: true }));
}

/**
 * Mocha's global setup for the whole suite (.mocharc.json requires this file; a single file run with
 * --no-config does without it): the migrated PGlite folder every embedded test service copies is
 * made once, before any test, so no test's timeout pays for initdb; the test processes (parallel
 * workers included) find it through TEST_PGLITE_TEMPLATE.
 */
export async function mochaGlobalSetup(): Promise<void> {
  process.env.TEST_PGLITE_TEMPLATE = await migratedEmbeddedFolder();
  // Names the run in the Redis prefix of the roles its tests start (test/processes.ts).
  process.env.TEST_RUN_ID = `${process.pid}-${Date.now()}`;
}

export async function mochaGlobalTeardown(): Promise<void> {
  const template = process.env.TEST_PGLITE_TEMPLATE;
  if (template) rmSync(dirname(template), { recursive: true, force: true });
  // The queues of the roles the run started (a killed role leaves its jobs and schedulers).
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 5000 });
  redis.on('error', () => undefined);
  try {
    for await (const keys of redis.scanStream({ match: `test-roles-${process.env.TEST_RUN_ID}-*`, count: 1000 })) {
      if ((keys as string[]).length) await redis.unlink(...(keys as string[]));
    }
  } catch {
    // Leftovers under the run's own prefix harm nothing.
  } finally {
    redis.disconnect();
  }
}

/**
 * TEST_CPU_LOG=FILE: each test file's wall time and the CPU it used, its process's and that of the
 * processes it started and waited for (roles, Chromium, OpenSSH, initdb; not the shared PostgreSQL
 * or Redis), one JSON line per file appended to FILE: where the suite's CPU goes, which decides a
 * parallel run's time on a machine with few cores. In a parallel run a root hook runs per file.
 */
const cpuLog = process.env.TEST_CPU_LOG;
function childrenCpuMs(): number {
  // /proc/self/stat: cutime and cstime (fields 16 and 17) in clock ticks of 10 ms.
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}
let fileStart: { at: number; own: NodeJS.CpuUsage; children: number } | undefined;
export const mochaHooks = cpuLog
  ? {
      beforeAll(this: Mocha.Context) {
        fileStart = { at: Date.now(), own: process.cpuUsage(), children: childrenCpuMs() };
      },
      afterAll(this: Mocha.Context) {
        if (!fileStart) return;
        const own = process.cpuUsage(fileStart.own);
        const file = this.test?.parent?.suites[0]?.file ?? '?';
        const row = {
          file,
          wallMs: Date.now() - fileStart.at,
          ownCpuMs: Math.round((own.user + own.system) / 1000),
          childCpuMs: childrenCpuMs() - fileStart.children,
        };
        appendFileSync(cpuLog, `${JSON.stringify(row)}\n`);
      },
    }
  : {};
