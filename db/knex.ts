import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { lockEmbeddedDb } from './embedded-lock.js';
import { migrationSource } from './migration-source.js';

export interface DbOptions {
  /** PostgreSQL URL; null runs the embedded PGlite database under dataDir. */
  databaseUrl: string | null;
  dataDir: string;
  /** PostgreSQL schema to use (tests isolate themselves this way); default public. */
  schema?: string;
}

export type Db = Knex & { readonly embedded: boolean; readonly schemaName: string };

/** One knex instance per process: pg for DATABASE_URL, PGlite (real PostgreSQL in WASM) otherwise. */
export function createDb(options: DbOptions): Db {
  const schema = options.schema ?? 'public';
  let knex: Knex;
  if (options.databaseUrl) {
    knex = knexFactory({
      client: 'pg',
      connection: options.databaseUrl,
      searchPath: [schema],
      pool: {
        min: 0,
        max: 10,
        afterCreate(conn: any, done: (err: Error | null, conn: unknown) => void) {
          // An idle client that loses its server must not crash the process.
          conn.on('error', () => undefined);
          conn.query("SET statement_timeout = '30s'", (err: Error | null) => done(err, conn));
        },
      },
      acquireConnectionTimeout: 5000,
      // knex prints connection trouble to the console itself; the same errors reach the caller,
      // which answers 503 and logs them through pino.
      log: { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined },
    });
  } else {
    const dir = resolve(options.dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
    // Two processes on one PGlite folder would each write their own copy: refuse the second.
    const lock = lockEmbeddedDb(resolve(options.dataDir));
    // pg_trgm backs the directory's case-insensitive substring search, as on PostgreSQL.
    const pglite = new PGlite(dir, { extensions: { pg_trgm } });
    knex = knexFactory({ client: ClientPgLite as any, dialect: 'postgres', connection: { pglite }, searchPath: [schema] } as Knex.Config);
    // knex.destroy() closes PGlite; the folder is free again then (or when this process exits).
    const close = pglite.close.bind(pglite);
    pglite.close = async () => {
      try {
        await close();
      } finally {
        lock.release();
      }
    };
  }
  return Object.assign(knex, { embedded: !options.databaseUrl, schemaName: schema }) as Db;
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  if (db.schemaName !== 'public') await db.raw('CREATE SCHEMA IF NOT EXISTS ??', [db.schemaName]);
  const [, applied] = await db.migrate.latest({ migrationSource, schemaName: db.schemaName });
  return applied as string[];
}

export async function migrateDown(db: Db): Promise<void> {
  await db.migrate.rollback({ migrationSource, schemaName: db.schemaName }, true);
}
