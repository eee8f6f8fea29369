import type { Server } from 'node:http';
import { createDb, migrateToLatest, type Db } from '../db/knex.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { createApp } from './app.js';

export interface WebHandle {
  server: Server;
  db: Db;
  /** Stops accepting, finishes in-flight requests, then closes the database. */
  close(): Promise<void>;
}

/** Starts the HTTP role: database (migrated), app, listener. */
export async function startWeb(config: Readonly<Config>, logger: Logger): Promise<WebHandle> {
  const db = createDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const applied = await migrateToLatest(db);
  logger.info({ embedded: db.embedded, applied }, 'database ready');
  let shuttingDown = false;
  const app = createApp({ config, logger, db, isShuttingDown: () => shuttingDown });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.port, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const address = server.address();
  logger.info({ port: typeof address === 'object' && address ? address.port : config.port }, 'listening');
  return {
    server,
    db,
    async close() {
      shuttingDown = true;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.destroy();
    },
  };
}
