import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../api/app.js';
import { createReadDb, type Db } from '../db/knex.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import type { JobQueues } from '../workers/job-queue.js';

/**
 * The service's app on a loopback port, its public reads going through the read pool as in the
 * service (their own connections, prepared page queries) over the bench's schema. The caller closes
 * the server and destroys the pool.
 */
export async function serveReads(
  db: Db,
  options: { databaseUrl: string; schema: string; config: Config; logger: Logger; queues: Pick<JobQueues, 'ingestQueue' | 'leadQueue'> },
): Promise<{ readDb: Db; server: Server; url: string }> {
  const { config, logger, queues } = options;
  const readDb = createReadDb(db, {
    databaseUrl: options.databaseUrl,
    dataDir: '',
    schema: options.schema,
    readTimeoutMs: config.dbReadTimeoutMs,
    preparedStatements: config.dbPreparedStatements,
  });
  const app = createApp({ config, logger, db, readDb, ingestQueue: queues.ingestQueue, leadQueue: queues.leadQueue });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { readDb, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
