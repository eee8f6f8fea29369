import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { migratedEmbeddedFolder } from './service.js';

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
