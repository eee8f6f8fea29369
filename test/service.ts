import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import { Redis } from 'ioredis';
import { startWeb } from '../api/web-role.js';
import { createDb, type Db, migrateToLatest } from '../db/knex.js';
import { type Config, loadConfig } from '../lib/config.js';
import type { RetryPolicy } from '../workers/job-queue.js';
import type { Runtime } from '../workers/runtime.js';
import { postgresUrl, silentLogger } from './helpers.js';

export const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const OPERATOR = 'operator-token-for-tests-0123456789';

export interface TestService {
  url: string;
  /** The Express app it serves (its routes, for tests that compare them with the API description). */
  app: Express;
  db: Db;
  runtime: Runtime;
  queuePrefix: string;
  rateLimitPrefix: string;
  config: Readonly<Config>;
  dataDir: string;
  /** Stops the HTTP server and the runtime (the database stays usable). */
  stop(): Promise<void>;
  /** stop(), then drops the schema (PostgreSQL) or the data folder (PGlite), and its own Redis keys. */
  close(): Promise<void>;
}

export interface TestServiceOptions {
  /** 'postgres': the machine's PostgreSQL in a fresh schema; 'pglite': embedded in a temp folder. */
  database: 'postgres' | 'pglite';
  /** Use BullMQ on the machine's Redis (a queue prefix per test run keeps runs apart). */
  redis?: boolean;
  /** Run workers in this process (default true). */
  consume?: boolean;
  env?: Record<string, string>;
  /** An existing database to share (a second process-like service on the same data). */
  db?: Db;
  /** Share another service's queues (default: a prefix of its own). */
  queuePrefix?: string;
  /** Share another service's rate-limit counters. */
  rateLimitPrefix?: string;
  /** Live FX cache lifetime (tests shorten it). */
  fxRefreshMs?: number;
  /** The ingest retry policy (default: production's, about 4 minutes). */
  ingestRetry?: RetryPolicy;
  /** Every periodic task this often (default: each its own interval). */
  maintenanceEveryMs?: number;
  /** How long instant alerts wait to gather a feed's changes (default: production's). */
  alertHoldMs?: number;
}

/** Deletes the Redis keys a test service made under its own prefixes (queues, rate-limit counters). */
async function dropRedisKeys(url: string, patterns: string[]): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 2000 });
  redis.on('error', () => undefined);
  try {
    for (const match of patterns) {
      const found: string[] = [];
      for await (const keys of redis.scanStream({ match, count: 500 })) found.push(...(keys as string[]));
      if (found.length) await redis.unlink(...found);
    }
  } catch {
    // Redis may be the thing a test stopped; leftovers under a unique prefix harm nothing.
  } finally {
    redis.disconnect();
  }
}

let embeddedTemplate: Promise<string> | undefined;

/**
 * A PGlite folder migrated once per test process, which each embedded test service starts from a
 * copy of. A new folder costs initdb and every migration inside PGlite (3 s on a quiet 2-core
 * machine, over 40 s with both cores busy); a copy opens in a fraction of that, and migrateToLatest
 * then finds nothing to do. The tests that are about a first start (initdb, migrations, the lock)
 * open folders of their own.
 */
export function migratedEmbeddedFolder(): Promise<string> {
  // The suite's global setup (test/setup.ts) made one for every test process of the run.
  if (process.env.TEST_PGLITE_TEMPLATE) return Promise.resolve(process.env.TEST_PGLITE_TEMPLATE);
  embeddedTemplate ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const db = createDb({ databaseUrl: null, dataDir: dir });
    try {
      await migrateToLatest(db);
    } finally {
      await db.destroy();
    }
    return join(dir, 'pglite');
  })().catch((err) => {
    embeddedTemplate = undefined;
    throw err;
  });
  return embeddedTemplate;
}

/**
 * A migrated embedded database of its own: a copy of the migrated PGlite folder in a new temporary
 * data folder (what a first start leaves, without paying initdb and every migration again).
 * `drop()` closes it and removes the folder. Tests about initdb or the migrations themselves open
 * an empty folder instead.
 */
export async function scratchEmbeddedDatabase(options: { sharedBuffers?: string | null } = {}): Promise<{ db: Db; dataDir: string; drop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'scratch-pglite-'));
  cpSync(await migratedEmbeddedFolder(), join(dataDir, 'pglite'), { recursive: true });
  const db = createDb({ databaseUrl: null, dataDir, sharedBuffers: options.sharedBuffers });
  return {
    db,
    dataDir,
    async drop() {
      await db.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Registers, in the calling describe, a before hook that starts a test service with `options` and
 * an after hook that closes it. Read `svc` inside tests and hooks, not at describe time: it is set
 * once the before hook has run.
 */
export function useTestService(options: TestServiceOptions): { svc: TestService } {
  const rig = {} as { svc: TestService };
  before(async () => {
    rig.svc = await startTestService(options);
  });
  after(() => rig.svc?.close());
  return rig;
}

/**
 * The service as `npm start` and the web role build it (api/web-role.ts: database, read pool,
 * runtime or queue producers, app), on loopback, configured like production. What is left here is
 * the tests' own: a temp data folder, a schema per service, the embedded template's copy, and
 * cleaning up after.
 */
export async function startTestService(options: TestServiceOptions): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const schema = `test_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const config = loadConfig({
    DATA_DIR: dataDir,
    OPERATOR_TOKEN: OPERATOR,
    LOG_LEVEL: 'silent',
    PORT: '0',
    ...(options.database === 'postgres' ? { DATABASE_URL: postgresUrl } : {}),
    ...(options.redis ? { REDIS_URL: redisUrl } : {}),
    ...options.env,
  });
  // Embedded: the database a first start leaves (PostgreSQL's public schema, every migration), copied.
  const embedded = !options.db && !config.databaseUrl;
  if (embedded) cpSync(await migratedEmbeddedFolder(), join(dataDir, 'pglite'), { recursive: true });
  const rateLimitPrefix = options.rateLimitPrefix ?? `rl-${schema}:`;
  const queuePrefix = options.queuePrefix ?? `test-${schema}`;
  const web = await startWeb(config, {
    logger: silentLogger,
    consume: options.consume ?? true,
    // Several services share this process: none writes the local-service file or clears the others' request bodies.
    ownsProcess: false,
    db: options.db,
    schema: embedded ? 'public' : schema,
    host: '127.0.0.1',
    queuePrefix,
    rateLimitPrefix,
    // Production gives a rate-limit count 500 ms and lets the request through past it (a slow Redis
    // must not stop the service); tests that count to a limit run on busy machines, so they wait longer.
    redisCommandTimeoutMs: 5000,
    // Refused enquiries are written at once here, so a test reads them as soon as it is answered.
    refusalFlushMs: 0,
    fxRefreshMs: options.fxRefreshMs,
    ingestRetry: options.ingestRetry,
    maintenanceEveryMs: options.maintenanceEveryMs,
    alertHoldMs: options.alertHoldMs,
  });
  const db = web.db;
  return {
    url: `http://127.0.0.1:${web.port}`,
    app: web.app,
    db,
    runtime: web.runtime,
    queuePrefix,
    rateLimitPrefix,
    config,
    dataDir,
    stop: web.stop,
    async close() {
      await web.stop();
      if (config.redisUrl) {
        await dropRedisKeys(config.redisUrl, [
          ...(options.queuePrefix ? [] : [`${queuePrefix}:*`]),
          ...(options.rateLimitPrefix ? [] : [`${rateLimitPrefix}*`]),
        ]);
      }
      if (options.db) return;
      if (options.database === 'postgres') await db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]).catch(() => undefined);
      await db.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
