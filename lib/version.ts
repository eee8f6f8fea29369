import { readFileSync } from 'node:fs';

/** The service's version, from its package.json (dist/lib is two levels below the repository, lib/ one). */
function readVersion(): string {
  for (const path of ['../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'listing-ingestion-service' && pkg.version) return pkg.version;
    } catch {
      // not there: try the next place
    }
  }
  return 'unknown';
}

export const SERVICE_VERSION = readVersion();
