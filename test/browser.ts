import { type Browser, chromium } from 'playwright-core';
import { startTestService, type TestService } from './service.js';

/** Debian's chromium (`apt-get install chromium`, done by .ci/run); override with CHROMIUM_PATH. */
const EXECUTABLE = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Starts headless Chromium (playwright gives it a fresh temporary profile). The
 * background-networking flags keep it from reaching for Google's hosts, which a closed network refuses.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: EXECUTABLE,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** What {@link useServiceAndBrowser} starts: set in the describe's before hook, closed in its after hook. */
export interface ServiceAndBrowser {
  svc: TestService;
  browser: Browser;
}

/**
 * Registers, in the calling describe, a before hook that starts a test service on embedded PGlite
 * and a headless Chromium, and an after hook that closes both (the browser first). Read the members
 * inside tests and hooks, not at describe time: they are set once the before hook has run.
 */
export function useServiceAndBrowser(): ServiceAndBrowser {
  const rig = {} as ServiceAndBrowser;
  before(async () => {
    rig.svc = await startTestService({ database: 'pglite' });
    rig.browser = await launchBrowser();
  });
  after(async () => {
    await rig.browser?.close();
    await rig.svc?.close();
  });
  return rig;
}
