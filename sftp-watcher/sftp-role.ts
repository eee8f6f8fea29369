import { openRoleDatabase } from '../db/role-database.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { createMetrics, serveMetrics } from '../lib/metrics.js';
import { openQueueProducers } from '../workers/producers.js';
import { startSftpWatcher } from './start.js';

/**
 * The sftp role's composition root (Procfile `sftp`): database (migrated), the ingest queue's
 * producer and the watcher that polls the SFTP drop folders and queues what it claims, as POST
 * /v1/feeds does. Needs SFTP_URL, DATABASE_URL and REDIS_URL (the embedded default runs the
 * watcher inside `npm start`). Several may run; a file is claimed once.
 */
export async function startSftpRole(config: Readonly<Config>, options: { logger: Logger; queuePrefix?: string }): Promise<{ close(): Promise<void> }> {
  if (!config.sftpUrl || !config.redisUrl || !config.databaseUrl) {
    throw new Error('the sftp role needs SFTP_URL, DATABASE_URL and REDIS_URL (the embedded default runs the watcher inside `npm start` when SFTP_URL is set)');
  }
  const { logger } = options;
  const db = await openRoleDatabase(config, logger);
  // The watcher only adds feeds: its queues are producers, with nothing consumed here.
  const queues = openQueueProducers(config.redisUrl, logger, { queuePrefix: options.queuePrefix ?? config.redisPrefix ?? undefined });
  // METRICS_PORT: this role's counters for a scraper on the private network.
  const metricsServer = config.metricsPort ? await serveMetrics(createMetrics(), config.metricsPort) : null;
  const watcher = startSftpWatcher(config, logger, db, queues.ingestQueue);
  return {
    async close() {
      metricsServer?.close();
      await watcher.stop();
      await queues.close();
      await db.destroy();
    },
  };
}
