import { type Browser, chromium } from 'playwright-core';

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
