import { loadConfigOrReport } from '../../lib/config.js';
import { EmbeddedDbInUseError } from '../embedded-lock.js';
import type { Db } from '../knex.js';
import { type LocalService, readLocalService } from '../local-service.js';

/**
 * Runs an operator command against the database the service uses (DATABASE_URL, or the embedded
 * one under DATA_DIR), migrated, and closes it after; or, when the service runs on the embedded
 * database, through the running service (whileRunning). Invalid configuration is reported and
 * answers exit code 1.
 */
export async function withConfiguredDb(
  run: (db: Db) => Promise<number>,
  options: { whileRunning?: (service: LocalService) => Promise<number> } = {},
): Promise<number> {
  const config = loadConfigOrReport();
  if (!config) return 1;
  // The embedded database takes one process at a time: while the service runs on it, a command
  // that can do its work through the service's API does (whileRunning), with the service's command token.
  const running = !config.databaseUrl && options.whileRunning ? readLocalService(config.dataDir) : null;
  if (running && options.whileRunning) return options.whileRunning(running);
  // The database's modules (knex, PGlite, pg: about 350) are loaded only when the command opens it,
  // not when it goes through the running service.
  const { createDb, migrateToLatest } = await import('../knex.js');
  let db: Db;
  try {
    db = createDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, sharedBuffers: config.embeddedSharedBuffers });
  } catch (err) {
    if (err instanceof EmbeddedDbInUseError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  }
  try {
    await migrateToLatest(db);
    return await run(db);
  } finally {
    await db.destroy();
  }
}
