import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { createDb, type Db, migrateToLatest } from './knex.js';

/**
 * Every role's database as its composition root opens it: PostgreSQL (DATABASE_URL) or the
 * embedded one in DATA_DIR, migrated to the latest schema before anything uses it. `schema`: the
 * PostgreSQL schema (default public; tests give each service its own).
 */
export async function openRoleDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'embeddedSharedBuffers'>,
  logger: Logger,
  options: { schema?: string } = {},
): Promise<Db> {
  const db = createDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, sharedBuffers: config.embeddedSharedBuffers, schema: options.schema });
  try {
    const applied = await migrateToLatest(db);
    if (db.tookOverLockFrom) logger.warn({ pid: db.tookOverLockFrom }, 'the embedded database was locked by a process that no longer exists; lock taken over');
    logger.info({ embedded: db.embedded, applied }, 'database ready');
  } catch (err) {
    await db.destroy().catch(() => undefined);
    throw err;
  }
  return db;
}
