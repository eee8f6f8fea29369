import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { createDb, type Db, migrateToLatest } from './knex.js';

type RoleDbConfig = Pick<Config, 'databaseUrl' | 'dataDir' | 'embeddedSharedBuffers'>;

/**
 * A role's database made, not yet migrated: PostgreSQL (DATABASE_URL) or the embedded one in
 * DATA_DIR, which begins opening at once. main.ts makes it before the web app's modules load, so
 * that PGlite opens meanwhile. `schema`: the PostgreSQL schema (default public; tests give each
 * service its own).
 */
export function createRoleDb(config: RoleDbConfig, options: { schema?: string } = {}): Db {
  return createDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, sharedBuffers: config.embeddedSharedBuffers, schema: options.schema });
}

/** A role's database migrated to the latest schema before anything uses it; closed again if that fails. */
export async function readyRoleDatabase(db: Db, logger: Logger): Promise<Db> {
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

/** Every role's database as its composition root opens it: made (createRoleDb) and migrated (readyRoleDatabase). */
export function openRoleDatabase(config: RoleDbConfig, logger: Logger, options: { schema?: string } = {}): Promise<Db> {
  return readyRoleDatabase(createRoleDb(config, options), logger);
}
