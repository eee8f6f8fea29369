import type { Db } from '../db/knex.js';
import { openRoleDatabase } from '../db/role-database.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { createMetrics, serveMetrics } from '../lib/metrics.js';
import type { RetryPolicy } from './job-queue.js';
import { type Runtime, startRuntime } from './runtime.js';

export interface WorkerRoleOptions {
  logger: Logger;
  /** The PostgreSQL schema (default public; tests give each service its own). */
  schema?: string;
  /** Redis key prefix of the queues (BullMQ's default). */
  queuePrefix?: string;
  /** The ingest retry policy (default INGEST_RETRY). */
  ingestRetry?: RetryPolicy;
  /** Every periodic task this often (default each its own interval). */
  maintenanceEveryMs?: number;
  /** How long instant alerts wait to gather a feed's changes (default ALERT_HOLD_MS). */
  alertHoldMs?: number;
}

/**
 * The worker role's composition root (Procfile `worker`): database (migrated), metrics, and the
 * runtime consuming every queue (BullMQ) with the periodic tasks. Needs DATABASE_URL and
 * REDIS_URL; any number of worker processes may run.
 */
export async function startWorkerRole(config: Readonly<Config>, options: WorkerRoleOptions): Promise<{ db: Db; runtime: Runtime; close(): Promise<void> }> {
  if (!config.redisUrl || !config.databaseUrl) {
    throw new Error('the worker role needs DATABASE_URL and REDIS_URL (the embedded default runs workers inside `npm start`)');
  }
  const { logger } = options;
  const db = await openRoleDatabase(config, logger, { schema: options.schema });
  const metrics = createMetrics();
  const runtime = await startRuntime(config, logger, db, {
    consume: true,
    metrics,
    queuePrefix: options.queuePrefix ?? config.redisPrefix ?? undefined,
    ingestRetry: options.ingestRetry,
    maintenanceEveryMs: options.maintenanceEveryMs,
    alertHoldMs: options.alertHoldMs,
  });
  // METRICS_PORT: this role's counters for a scraper on the private network.
  const metricsServer = config.metricsPort ? await serveMetrics(metrics, config.metricsPort) : null;
  logger.info('worker started');
  return {
    db,
    runtime,
    async close() {
      metricsServer?.close();
      await runtime.close();
      await db.destroy();
    },
  };
}
