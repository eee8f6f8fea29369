import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { migratedEmbeddedFolder } from './service.js';

// A parallel run's worker (mocha --parallel sets MOCHA_WORKER_ID) gets a temporary directory of its
// own, and so do the processes its tests start (test/processes.ts passes TMPDIR on): tests that
// look for what a request left in the temp directory see only their own worker's.
if (process.env.MOCHA_WORKER_ID !== undefined) {
  const own = mkdtempSync(join(tmpdir(), `mocha-worker-${process.env.MOCHA_WORKER_ID}-`));
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
}

export function mochaGlobalTeardown(): void {
  const template = process.env.TEST_PGLITE_TEMPLATE;
  if (template) rmSync(dirname(template), { recursive: true, force: true });
}
