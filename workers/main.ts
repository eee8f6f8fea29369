import { createDb, migrateToLatest } from '../db/knex.js';
import { createMetrics, serveMetrics } from '../lib/metrics.js';
import { runProcess } from './run-process.js';
import { startRuntime } from './runtime.js';

/**
 * The worker role (Procfile `worker`): BullMQ consumers for the ingest queue, plus the sweep
 * that re-queues lost feeds and sends the notification outbox. Needs DATABASE_URL and REDIS_URL;
 * any number of worker processes may run.
 */
await runProcess('worker', async (config, logger) => {
  if (!config.redisUrl || !config.databaseUrl) {
    throw new Error('the worker role needs DATABASE_URL and REDIS_URL (the embedded default runs workers inside `npm start`)');
  }
  const db = createDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, sharedBuffers: config.embeddedSharedBuffers });
  await migrateToLatest(db);
  const metrics = createMetrics();
  const runtime = await startRuntime(config, logger, db, { consume: true, metrics, queuePrefix: config.redisPrefix ?? undefined });
  // METRICS_PORT: this role's counters for a scraper on the private network.
  const metricsServer = config.metricsPort ? await serveMetrics(metrics, config.metricsPort) : null;
  logger.info('worker started');
  return {
    async close() {
      metricsServer?.close();
      await runtime.close();
      await db.destroy();
    },
  };
});
