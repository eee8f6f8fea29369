import { createDb, migrateToLatest } from '../db/knex.js';
import { createMetrics, serveMetrics } from '../lib/metrics.js';
import { runProcess } from '../workers/run-process.js';
import { startRuntime } from '../workers/runtime.js';
import { startSftpWatcher } from './start.js';

/**
 * The sftp role (Procfile `sftp`): polls the SFTP drop folders and queues what it claims on the
 * same ingest queue as POST /v1/feeds. Needs SFTP_URL, DATABASE_URL and REDIS_URL (the embedded
 * default runs the watcher inside `npm start`). Several may run; a file is claimed once.
 */
await runProcess('sftp', async (config, logger) => {
  if (!config.sftpUrl || !config.redisUrl || !config.databaseUrl) {
    throw new Error('the sftp role needs SFTP_URL, DATABASE_URL and REDIS_URL (the embedded default runs the watcher inside `npm start` when SFTP_URL is set)');
  }
  const db = createDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, sharedBuffers: config.embeddedSharedBuffers });
  await migrateToLatest(db);
  const metrics = createMetrics();
  const runtime = await startRuntime(config, logger, db, { consume: false, metrics, queuePrefix: config.redisPrefix ?? undefined });
  // METRICS_PORT: this role's counters for a scraper on the private network.
  const metricsServer = config.metricsPort ? await serveMetrics(metrics, config.metricsPort) : null;
  const watcher = startSftpWatcher(config, logger, db, runtime.ingestQueue);
  return {
    async close() {
      metricsServer?.close();
      await watcher.stop();
      await runtime.close();
      await db.destroy();
    },
  };
});
