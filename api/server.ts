import { setMaxListeners } from 'node:events';
import type { Server } from 'node:http';
import { startFeedDoneListener } from '../db/feed-done.js';
import { createDb, type Db, migrateToLatest } from '../db/knex.js';
import { refusalCounter } from '../db/lead-refusals.js';
import { removeLocalService, writeLocalService } from '../db/local-service.js';
import { createOperatorToken, hasOperatorTokens } from '../db/operators.js';
import { openPublicReadDb } from '../db/read-replica.js';
import { recordQueueDepth } from '../db/stats-history.js';
import type { Config } from '../lib/config.js';
import { liveFx, staticFx } from '../lib/fx-rates.js';
import type { Logger } from '../lib/logger.js';
import { createMetrics, serveMetrics } from '../lib/metrics.js';
import { newSecret } from '../lib/secrets.js';
import { INGEST_QUEUE, LEAD_QUEUE, MAINTENANCE_QUEUE, startRuntime, WEBHOOK_QUEUE } from '../workers/runtime.js';
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

/**
 * Starts the HTTP role: database (migrated), queue runtime, app, listener. `consume` also runs
 * the workers in this process (the all-in-one process; and the web role without REDIS_URL,
 * where nothing else could run its jobs), and the SFTP watcher when SFTP_URL is set. `db`: the
 * configured database, already made by the caller (main.ts opens it while this module loads);
 * made here when not given.
 */
export async function startWeb(config: Readonly<Config>, logger: Logger, options: { consume: boolean; db?: Db }): Promise<WebHandle> {
  const db = options.db ?? createDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, sharedBuffers: config.embeddedSharedBuffers });
  const applied = await migrateToLatest(db);
  const reads = await openPublicReadDb(
    db,
    {
      databaseUrl: config.databaseUrl,
      databaseReadUrl: config.databaseReadUrl,
      dataDir: config.dataDir,
      readTimeoutMs: config.dbReadTimeoutMs,
      preparedStatements: config.dbPreparedStatements,
    },
    (state) =>
      state.state === 'ok'
        ? logger.info('public reads go to the read replica (DATABASE_READ_URL)')
        : logger.warn('the read replica does not answer: public reads go to the primary until it does'),
  );
  const readDb = reads.readDb;
  if (db.tookOverLockFrom) logger.warn({ pid: db.tookOverLockFrom }, 'the embedded database was locked by a process that no longer exists; lock taken over');
  logger.info({ embedded: db.embedded, applied }, 'database ready');
  // On the embedded database: a first operator token when none exists yet, and a command token for npm run key:create.
  const firstStartToken = db.embedded && !config.operatorToken ? await firstOperatorToken(db, logger) : null;
  const localToken = db.embedded ? newSecret('lop') : null;
  const consume = options.consume || !config.redisUrl;
  const metrics = createMetrics();
  const queuePrefix = config.redisPrefix ?? undefined;
  const runtime = await startRuntime(config, logger, db, { consume, metrics, queuePrefix });
  const metricsServer = config.metricsPort ? await serveMetrics(metrics, config.metricsPort) : null;
  // Requests waiting for a feed hear from workers in other processes through LISTEN (PostgreSQL).
  const feedDone = config.databaseUrl ? startFeedDoneListener(config.databaseUrl, logger) : null;
  // The all-in-one process (and a lone web role) also watches the SFTP drops when SFTP_URL is set
  // (the SFTP client's modules are loaded only then).
  const watcher = consume && config.sftpUrl ? (await import('../sftp-watcher/start.js')).startSftpWatcher(config, logger, db, runtime.ingestQueue) : null;
  // Rate-limit counters: a command that cannot be answered within 500 ms lets the request pass.
  // ioredis, BullMQ and Bull Board are loaded only with REDIS_URL (a start without it skips them).
  const redis = config.redisUrl ? new (await import('ioredis')).Redis(config.redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 500 }) : null;
  redis?.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  const bull = config.redisUrl ? await import('../workers/bullmq-queue.js') : null;
  const boardQueues = bull
    ? [INGEST_QUEUE, LEAD_QUEUE, WEBHOOK_QUEUE, MAINTENANCE_QUEUE].map((name) => bull.queueForBoard(name, config.redisUrl!, queuePrefix))
    : [];
  const queueBoard = boardQueues.length ? (await import('./queue-board.js')).queueBoard(boardQueues, logger) : undefined;
  let shuttingDown = false;
  const shutdown = new AbortController();
  // Every request receiving a body or waiting for a feed listens to it: no listener limit.
  setMaxListeners(0, shutdown.signal);
  const fx = config.fxSource === 'live' ? liveFx({ primaryUrl: config.fxPrimaryUrl, backupUrl: config.fxBackupUrl, logger }) : staticFx();
  // Enquiries refused before they became leads, counted for the console (written every few seconds).
  const refusals = refusalCounter(db, { onError: (err) => logger.warn({ err: err.message }, 'could not store refused-enquiry counts') });
  // The queues' depths each minute for the console's chart (Redis only: the in-process queue has no depth to chart).
  const sampler = config.redisUrl
    ? setInterval(() => {
        Promise.all([runtime.ingestQueue.counts(), runtime.leadQueue.counts(), runtime.webhookQueue?.counts()])
          .then(([ingest, lead, webhook]) =>
            recordQueueDepth(db, { ingest: ingest.waiting ?? 0, leadDelivery: lead.waiting ?? 0, webhookDelivery: webhook?.waiting ?? 0 }),
          )
          .catch((err: Error) => logger.warn({ err: err.message }, 'could not sample the queue depths'));
      }, 60_000).unref()
    : null;
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
    queueBoard,
    rateLimitPrefix: config.redisPrefix ? `${config.redisPrefix}:rl:` : undefined,
    fx,
    isShuttingDown: () => shuttingDown,
    shutdown: shutdown.signal,
    metrics,
    localOperatorToken: localToken,
    readReplica: reads.replica ?? undefined,
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.port, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  if (localToken) writeLocalService(config.dataDir, { pid: process.pid, port, token: localToken });
  logger.info({ port, queue: config.redisUrl ? 'bullmq' : 'in-process', workers: consume }, 'listening');
  return {
    server,
    db,
    port,
    firstStartToken,
    async close() {
      shuttingDown = true;
      if (localToken) removeLocalService(config.dataDir);
      shutdown.abort(); // requests waiting on a feed answer 202 with its status URL now
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (sampler) clearInterval(sampler);
      await refusals.flush();
      // A body cut off by the shutdown may still be removing its temporary file: none is left.
      removeLeftSpools();
      metricsServer?.close();
      await feedDone?.close();
      await watcher?.stop();
      await runtime.close();
      await Promise.all(boardQueues.map((q) => q.close()));
      redis?.disconnect();
      await reads.close();
      await db.destroy();
    },
  };
}
