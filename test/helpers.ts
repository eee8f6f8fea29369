import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Express } from 'express';
import { storeFeedEvent } from '../db/feed-bodies.js';
import type { FeedEvent, FeedEventInput } from '../db/feed-events.js';
import { createDb, type Db, migrateToLatest } from '../db/knex.js';
import { createLogger } from '../lib/logger.js';
import type { FeedContext } from '../pipeline/types.js';

/** Tests run from dist/test; the repository root is two levels up. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const fixtureDir = resolve(repoRoot, 'test/fixtures/reaxml/openrealestate');

export function fixture(relative: string): string {
  return readFileSync(resolve(fixtureDir, relative), 'utf8');
}

/** The real PostgreSQL the machine runs (trust auth); CI and developers share it. */
export const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export const silentLogger = createLogger('silent');

export const AU_CONTEXT: FeedContext = { currency: 'AUD', defaultCountry: 'AU', sourceLocale: 'en-AU' };

/** A migrated database in a PostgreSQL schema of its own (named after name); drop() removes the schema and closes it. */
export async function scratchDatabase(name: string): Promise<{ db: Db; schema: string; drop(): Promise<void> }> {
  const schema = `${name}_${process.pid}_${Date.now()}`;
  const db = createDb({ databaseUrl: postgresUrl, dataDir: '', schema });
  await migrateToLatest(db);
  return {
    db,
    schema,
    async drop() {
      await db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
      await db.destroy();
    },
  };
}

/** A scratch database with a second pool of its own on it (`other`), for what one session sees while another holds a lock. */
export async function scratchDatabasePair(name: string): Promise<{ db: Db; other: Db; drop(): Promise<void> }> {
  const scratch = await scratchDatabase(name);
  const other = createDb({ databaseUrl: postgresUrl, dataDir: '', schema: scratch.schema });
  return {
    db: scratch.db,
    other,
    async drop() {
      await other.destroy();
      await scratch.drop();
    },
  };
}

/** A raw REAXML feed for the offices, stored as an API feed event (incremental, Australian context) from the pieces given. */
export function storeTestFeedEvent(db: Db, officeScope: string[], pieces: Buffer[]): Promise<FeedEvent> {
  const input: FeedEventInput = {
    source: 'api',
    keyId: null,
    officeScope,
    alertEmail: null,
    format: 'reaxml',
    mode: 'incremental',
    context: { ...AU_CONTEXT },
    bodyKind: 'bytes',
  };
  return storeFeedEvent(
    db,
    input,
    (async function* () {
      yield* pieces;
    })(),
  );
}

/** Starts an app on a free loopback port. */
export async function listen(app: Express): Promise<{ url: string; close(): Promise<void> }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A minimal REAXML listing around the given inner XML. */
export function listingXml(inner: string, attrs = 'modTime="2024-03-01-10:00:00" status="current"', kind = 'residential'): string {
  return `<${kind} ${attrs}><agentID>OFF1</agentID><uniqueID>L1</uniqueID>${inner}</${kind}>`;
}

export const ADDRESS =
  '<address><streetNumber>39</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address>';

export function feed(...listings: string[]): string {
  return `<?xml version="1.0" encoding="utf-8"?>\n<propertyList>\n${listings.join('\n')}\n</propertyList>`;
}

/** The temporary directories named prefix* (a dry run's spool, an upload's body) in this process's temp directory. */
export function tempDirs(prefix: string): Set<string> {
  return new Set(readdirSync(tmpdir()).filter((name) => name.startsWith(prefix)));
}

/**
 * The prefix* temporary directories made since `before` that are still there after waitMs: the
 * requests that made them have ended, so each should have been removed.
 */
export async function leftTempDirs(prefix: string, before: Set<string>, waitMs = 3000): Promise<string[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const left = [...tempDirs(prefix)].filter((name) => !before.has(name));
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * How long a test waits for an embedded service's first start (initdb and every migration inside
 * PGlite): about 3 s on a quiet 2-core machine, over 40 s with both cores busy. A bound, not a
 * measurement: a quiet start ends the wait at once.
 */
export const EMBEDDED_START_MS = 120_000;

/**
 * Polls `probe` every 50 ms until it gives a truthy value (returned), or fails naming `what` after
 * `ms`. The one way tests wait for something the service does in the background.
 */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
