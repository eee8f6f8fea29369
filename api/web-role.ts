import { setMaxListeners } from 'node:events';
import type { Server } from 'node:http';
import type { Express } from 'express';
import { startFeedDoneListener } from '../db/feed-done.js';
import type { Db } from '../db/knex.js';
import { refusalCounter } from '../db/lead-refusals.js';
import { removeLocalService, writeLocalService } from '../db/local-service.js';
import { createOperatorToken, hasOperatorTokens } from '../db/operators.js';
import { openPublicReadDb } from '../db/read-replica.js';
import { createRoleDb, readyRoleDatabase } from '../db/role-database.js';
import { recordQueueDepth } from '../db/stats-history.js';
import type { Config } from '../lib/config.js';
import { liveFx, staticFx } from '../lib/fx-rates.js';
import type { Logger } from '../lib/logger.js';
import { createMetrics, type Metrics, serveMetrics } from '../lib/metrics.js';
import { newSecret } from '../lib/secrets.js';
import { type JobQueues, QUEUE_NAMES, type RetryPolicy } from '../workers/job-queue.js';
import { type Runtime, startRuntime } from '../workers/runtime.js';
import { createApp } from './app.js';
import { removeLeftSpools } from './spool-body.js';

export interface WebHandle {
  server: Server;
  db: Db;
  /** The port it listens on (PORT, or the one the system gave for PORT=0). */
  port: number;
  /** The operator token this start made (a first start on the embedded database), to show once; else null. */
  firstStartToken: string | null;
  /** Stops accepting, finishes in-flight requests, then closes queues and the database. */
  close(): Promise<void>;
}

/**
 * The embedded service's first operator token: when no operator credential exists at all (no
 * OPERATOR_TOKEN, no named token), one named "first-start" is made and shown once in the log, so the
 * console opens at once. It is stored only as a hash, like every named token.
 */
async function firstOperatorToken(db: Db, logger: Logger): Promise<string | null> {
  if (await hasOperatorTokens(db)) return null;
  const { token } = await createOperatorToken(db, 'first-start');
  logger.warn(
    `first start: operator token for /console and the admin API (shown once, stored only as a hash; make others with npm run operator:token): ${token}`,
  );
  return token;
}

/**
 * The lines `npm start` shows a person once it listens (on stderr; the JSON log lines go on): where
 * the service, its console and its API docs are, and the operator token a first start made.
 */
export function startBanner(web: Pick<WebHandle, 'port' | 'firstStartToken'>, publicBaseUrl: string | null): string {
  const base = `http://localhost:${web.port}`;
  const lines = [
    '',
    `Listing service: ${base}${publicBaseUrl && publicBaseUrl !== base ? ` (public address ${publicBaseUrl})` : ''}`,
    `  console   ${base}/console`,
    `  API docs  ${base}/docs`,
  ];
  if (web.firstStartToken) {
    lines.push(`  operator token (made by this first start, shown only now; sign in to the console with it):`, `            ${web.firstStartToken}`);
  }
  lines.push('  stop with Ctrl-C', '', '');
  return lines.join('\n');
}

/** What a role's composition root may be given besides its Config (tests and the process entries). */
export interface WebRoleOptions {
  logger: Logger;
  /**
   * Run the workers in this process: the consumers, the periodic tasks and, with SFTP_URL, the
   * SFTP watcher (the all-in-one process; the web role without REDIS_URL, where nothing else
   * could run its jobs). Without it and with REDIS_URL only the queues' producers are made;
   * without REDIS_URL the in-process queues run their jobs here whatever it says.
   */
  consume: boolean;
  /** This service is its process's (default true): it writes the local-service file for the commands, and removes left request bodies on close. */
  ownsProcess?: boolean;
  /** An open database shared with another service of this process: neither migrated, given a read pool of its own, nor closed here. */
  db?: Db;
  /**
   * This role's own database, made by the caller and not yet migrated (main.ts makes it before this
   * module loads, so that the embedded database opens meanwhile): migrated, read from and closed
   * here like one made here.
   */
  ownDb?: Db;
  /** The PostgreSQL schema (default public; tests give each service its own). */
  schema?: string;
  /** The address to listen on (default every interface). */
  host?: string;
  /** Redis key prefix of the queues (BullMQ's default; tests isolate themselves with their own). */
  queuePrefix?: string;
  /** Redis key prefix of the rate-limit counters. */
  rateLimitPrefix?: string;
  /** How long a rate-limit count may take before the request passes (default 500 ms: a slow Redis must not stop the service). */
  redisCommandTimeoutMs?: number;
  /** How often refused enquiries are written (default a few seconds; 0: at once). */
  refusalFlushMs?: number;
  /** Live FX cache lifetime (default the FX module's own). */
  fxRefreshMs?: number;
  /** The ingest retry policy (default INGEST_RETRY). */
  ingestRetry?: RetryPolicy;
  /** Every periodic task this often (default each its own interval). */
  maintenanceEveryMs?: number;
  /** How long instant alerts wait to gather a feed's changes (default ALERT_HOLD_MS). */
  alertHoldMs?: number;
}

export interface WebRole extends WebHandle {
  app: Express;
  /** The queues requests add jobs to, and the sweep (a no-op where this process does not consume). */
  runtime: Runtime;
  /** Stops everything close() does except the database, which stays usable. */
  stop(): Promise<void>;
}

/** The public reads' database: the primary's read pool, or the replica while it answers (DATABASE_READ_URL). */
function openReads(config: Readonly<Config>, logger: Logger, db: Db) {
  return openPublicReadDb(
    db,
    {
      databaseUrl: config.databaseUrl,
      databaseReadUrl: config.databaseReadUrl,
      dataDir: config.dataDir,
      schema: db.schemaName,
      readTimeoutMs: config.dbReadTimeoutMs,
      preparedStatements: config.dbPreparedStatements,
    },
    (state) =>
      state.state === 'ok'
        ? logger.info('public reads go to the read replica (DATABASE_READ_URL)')
        : logger.warn('the read replica does not answer: public reads go to the primary until it does'),
  );
}

/** Records the queues' waiting jobs each minute, for the console's chart. */
function sampleQueueDepths(db: Db, queues: JobQueues, logger: Logger): NodeJS.Timeout {
  return setInterval(() => {
    Promise.all([queues.ingestQueue.counts(), queues.leadQueue.counts(), queues.webhookQueue.counts()])
      .then(([ingest, lead, webhook]) =>
        recordQueueDepth(db, { ingest: ingest.waiting ?? 0, leadDelivery: lead.waiting ?? 0, webhookDelivery: webhook.waiting ?? 0 }),
      )
      .catch((err: Error) => logger.warn({ err: err.message }, 'could not sample the queue depths'));
  }, 60_000).unref();
}

/** Listens on the port (0: one the system gives), on every interface or the one host. */
function listen(app: Express, port: number, host: string | undefined): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    const done = (err?: Error) => (err ? reject(err) : resolve(server));
    const server = host ? app.listen(port, host, done) : app.listen(port, done);
  });
}

/** The queues for a process that runs no jobs: producers on Redis, a sweep that does nothing. */
async function producersOnly(redisUrl: string, logger: Logger, options: WebRoleOptions): Promise<Runtime> {
  // BullMQ is loaded only with REDIS_URL (workers/producers.ts imports it).
  const { openQueueProducers } = await import('../workers/producers.js');
  const producers = openQueueProducers(redisUrl, logger, { queuePrefix: options.queuePrefix, ingestRetry: options.ingestRetry });
  return { ...producers, sweep: async () => undefined };
}

/**
 * The queues: the worker runtime where this process consumes or has no Redis (the in-process queue
 * runs its jobs), else the producers alone.
 */
async function queuesFor(config: Readonly<Config>, db: Db, options: WebRoleOptions, metrics: Metrics): Promise<Runtime> {
  const { logger, consume, queuePrefix } = options;
  if (!consume && config.redisUrl) return producersOnly(config.redisUrl, logger, options);
  return startRuntime(config, logger, db, {
    consume,
    metrics,
    queuePrefix,
    ingestRetry: options.ingestRetry,
    maintenanceEveryMs: options.maintenanceEveryMs,
    alertHoldMs: options.alertHoldMs,
  });
}

/**
 * With REDIS_URL: the rate limits' client (a command that cannot be answered in time lets the
 * request pass) and the queue board's queues. ioredis, BullMQ and Bull Board are loaded only then
 * (a start without Redis skips them).
 */
async function redisClients(config: Readonly<Config>, logger: Logger, queuePrefix: string | undefined, commandTimeoutMs = 500) {
  if (!config.redisUrl) return { redis: null, boardQueues: [], queueBoard: undefined };
  const redisUrl = config.redisUrl;
  const redis = new (await import('ioredis')).Redis(redisUrl, { maxRetriesPerRequest: 1, commandTimeout: commandTimeoutMs });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  const bull = await import('../workers/bullmq-queue.js');
  const boardQueues = QUEUE_NAMES.map((name) => bull.queueForBoard(name, redisUrl, queuePrefix));
  const queueBoard = (await import('./queue-board.js')).queueBoard(boardQueues, logger);
  return { redis, boardQueues, queueBoard };
}

/**
 * What runs beside the app: the metrics port (METRICS_PORT), the listener through which requests
 * waiting for a feed hear from workers in other processes (LISTEN, PostgreSQL), and, where this
 * process consumes, the SFTP drops' watcher when SFTP_URL is set (its client's modules are loaded
 * only then). close() stops them, the watcher last.
 */
async function besideTheApp(config: Readonly<Config>, logger: Logger, db: Db, runtime: Runtime, metrics: Metrics, consume: boolean) {
  const metricsServer = config.metricsPort ? await serveMetrics(metrics, config.metricsPort) : null;
  const feedDone = config.databaseUrl ? startFeedDoneListener(config.databaseUrl, logger) : null;
  const watcher = consume && config.sftpUrl ? (await import('../sftp-watcher/start.js')).startSftpWatcher(config, logger, db, runtime.ingestQueue) : null;
  return {
    async close() {
      metricsServer?.close();
      await feedDone?.close();
      await watcher?.stop();
    },
  };
}

/** Exchange rates from the configured live sources (FX_SOURCE=live), refreshed as they say. */
function liveRates(config: Readonly<Config>, logger: Logger, refreshMs: number | undefined) {
  return liveFx({ primaryUrl: config.fxPrimaryUrl, backupUrl: config.fxBackupUrl, logger, refreshMs });
}

/** Enquiries refused before they became leads, counted for the console (written every few seconds). */
function refusedEnquiries(db: Db, logger: Logger, flushMs: number | undefined) {
  return refusalCounter(db, { flushMs, onError: (err) => logger.warn({ err: err.message }, 'could not store refused-enquiry counts') });
}

/**
 * The web role's composition root (and the all-in-one process's, with consume): database
 * (migrated), public read pool or replica, the queues (the worker runtime where this process
 * consumes or has no Redis, else producers only), metrics, rate-limit Redis, app and listener.
 * `npm start`, the `web` role and the tests' services are all built here.
 */
export async function startWeb(config: Readonly<Config>, options: WebRoleOptions): Promise<WebRole> {
  const { logger } = options;
  const ownsProcess = options.ownsProcess ?? true;
  const db = options.db ?? (await readyRoleDatabase(options.ownDb ?? createRoleDb(config, { schema: options.schema }), logger));
  const reads = options.db ? null : await openReads(config, logger, db);
  const readDb = reads?.readDb ?? db;
  // On the embedded database: a first operator token when none exists yet, and a command token for npm run key:create.
  const firstStartToken = db.embedded && !config.operatorToken ? await firstOperatorToken(db, logger) : null;
  const localToken = db.embedded && ownsProcess ? newSecret('lop') : null;
  const { consume } = options;
  // REDIS_PREFIX: every key this deployment makes in Redis (queues, rate-limit counters); a test's own prefixes come first.
  const queuePrefix = options.queuePrefix ?? config.redisPrefix ?? undefined;
  const rateLimitPrefix = options.rateLimitPrefix ?? (config.redisPrefix ? `${config.redisPrefix}:rl:` : undefined);
  const metrics = createMetrics();
  const runtime = await queuesFor(config, db, { ...options, queuePrefix }, metrics);
  const beside = await besideTheApp(config, logger, db, runtime, metrics, consume);
  const { redis, boardQueues, queueBoard } = await redisClients(config, logger, queuePrefix, options.redisCommandTimeoutMs);
  let shuttingDown = false;
  const shutdown = new AbortController();
  // Every request receiving a body or waiting for a feed listens to it: no listener limit.
  setMaxListeners(0, shutdown.signal);
  const fx = config.fxSource === 'live' ? liveRates(config, logger, options.fxRefreshMs) : staticFx();
  const refusals = refusedEnquiries(db, logger, options.refusalFlushMs);
  // The queues' depths each minute for the console's chart (Redis only: the in-process queue has no depth to chart).
  const sampler = config.redisUrl ? sampleQueueDepths(db, runtime, logger) : null;
  const app = createApp({
    refusals,
    config,
    logger,
    db,
    readDb,
    ingestQueue: runtime.ingestQueue,
    leadQueue: runtime.leadQueue,
    webhookQueue: runtime.webhookQueue,
    redis,
    rateLimitPrefix,
    queueBoard,
    fx,
    isShuttingDown: () => shuttingDown,
    shutdown: shutdown.signal,
    metrics,
    localOperatorToken: localToken,
    readReplica: reads?.replica ?? undefined,
  });
  const server = await listen(app, config.port, options.host);
  const port = (server.address() as { port: number } | null)?.port ?? config.port;
  if (localToken) writeLocalService(config.dataDir, { pid: process.pid, port, token: localToken });
  logger.info({ port, queue: config.redisUrl ? 'bullmq' : 'in-process', workers: consume }, 'listening');
  let stopped: Promise<void> | null = null;
  const stop = () =>
    (stopped ??= (async () => {
      shuttingDown = true;
      if (localToken) removeLocalService(config.dataDir);
      shutdown.abort(); // requests waiting on a feed answer 202 with its status URL now
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (sampler) clearInterval(sampler);
      await refusals.flush();
      // A body cut off by the shutdown may still be removing its temporary file: none is left.
      if (ownsProcess) removeLeftSpools();
      await beside.close();
      await runtime.close();
      await Promise.all(boardQueues.map((q) => q.close()));
      redis?.disconnect();
      await reads?.close();
    })());
  return {
    server,
    app,
    db,
    runtime,
    port,
    firstStartToken,
    stop,
    async close() {
      await stop();
      if (!options.db) await db.destroy();
    },
  };
}
