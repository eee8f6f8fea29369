import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { lockEmbeddedDb } from './embedded-lock.js';
import { migrationSource } from './migration-source.js';
import { openPglite } from './open-pglite.js';
import { prepareMarkedQueries } from './prepared-statements.js';

export interface DbOptions {
  /** PostgreSQL URL; null runs the embedded PGlite database under dataDir. */
  databaseUrl: string | null;
  dataDir: string;
  /** PostgreSQL schema to use (tests isolate themselves this way); default public. */
  schema?: string;
  /**
   * PostgreSQL only: how long one statement may run (the server's statement_timeout); a statement
   * the server does not answer at all fails a second later on the client. Default 30 s.
   */
  statementTimeoutMs?: number;
  /** PostgreSQL only: connections in the pool (default 10). */
  poolMax?: number;
  /**
   * Embedded only: PostgreSQL's shared_buffers inside PGlite, e.g. '16MB' (default 128MB). Smaller
   * keeps the idle process smaller (16MB: about 140 MB less) at the cost of slower bulk loads
   * (about 25% on a 100,000-listing first load); searches are as fast (docs/architecture.md).
   */
  sharedBuffers?: string | null;
  /** PostgreSQL only: commit without waiting for the WAL to reach the disk (Db.asyncCommit). */
  asyncCommit?: boolean;
  /**
   * PostgreSQL only: how many named prepared statements each connection keeps for queries marked
   * PREPARE (db/prepared-statements.ts), least recently used dropped first; 0 (the default) runs
   * every query unnamed.
   */
  preparedStatements?: number;
}

/** What pg says when a query got no answer within its query_timeout. */
const QUERY_READ_TIMEOUT = 'Query read timeout';

/**
 * A connection whose query went unanswered (a server or proxy holding the connection) cannot be
 * used again: the late answer would be taken for the next query's. It is closed and marked so the
 * pool makes a new one.
 */
function disposeOnReadTimeout(conn: any): void {
  const query = conn.query.bind(conn);
  conn.query = (config: unknown, ...rest: any[]) => {
    const callback = rest.at(-1);
    if (typeof callback !== 'function') return query(config, ...rest);
    return query(config, ...rest.slice(0, -1), (err: Error | null, result: unknown) => {
      if (err?.message === QUERY_READ_TIMEOUT) {
        conn.__knex__disposed = QUERY_READ_TIMEOUT;
        conn.connection?.stream?.destroy();
      }
      callback(err, result);
    });
  };
}

/** tookOverLockFrom: the embedded database's lock was left by this process, which no longer exists, and was taken over. */
export type Db = Knex & {
  readonly embedded: boolean;
  readonly schemaName: string;
  readonly tookOverLockFrom: number | null;
  /**
   * The same database through connections that commit without waiting for the WAL to reach the
   * disk (synchronous_commit off; a pool of its own, made on first use and closed with this one).
   * For work whose end is recorded by a synchronous commit on this Db, which flushes the WAL up to
   * itself and so every commit before it: a feed's writes, made durable by the statement that
   * finishes the feed. A crash before that loses only work that was never reported done, and the
   * sweep runs it again. Embedded, the database itself.
   */
  asyncCommit(): Db;
};

/** One knex instance per process: pg for DATABASE_URL, PGlite (real PostgreSQL in WASM) otherwise. */
export function createDb(options: DbOptions): Db {
  const schema = options.schema ?? 'public';
  let knex: Knex;
  let tookOverLockFrom: number | null = null;
  if (options.databaseUrl) {
    const statementTimeoutMs = options.statementTimeoutMs ?? 30_000;
    knex = knexFactory({
      client: 'pg',
      // A server that accepts connections but never answers: connecting fails after 3 s, and a
      // query a second after the server itself would have cancelled it.
      connection: { connectionString: options.databaseUrl, connectionTimeoutMillis: 3000, query_timeout: statementTimeoutMs + 1000 },
      searchPath: [schema],
      pool: {
        min: 0,
        max: options.poolMax ?? 10,
        afterCreate(conn: any, done: (err: Error | null, conn: unknown) => void) {
          // An idle client that loses its server must not crash the process.
          conn.on('error', () => undefined);
          disposeOnReadTimeout(conn);
          const prepared = options.preparedStatements ?? 0;
          if (prepared > 0) prepareMarkedQueries(conn, prepared);
          const commit = options.asyncCommit ? '; SET synchronous_commit = off' : '';
          conn.query(`SET statement_timeout = ${Math.round(statementTimeoutMs)}${commit}`, (err: Error | null) => done(err, conn));
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
    tookOverLockFrom = lock.tookOverFrom;
    const pglite = openPglite(dir, options.sharedBuffers);
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
  const db = Object.assign(knex, { embedded: !options.databaseUrl, schemaName: schema, tookOverLockFrom }) as Db;
  let asyncSibling: Db | null = null;
  const asyncCommit = (): Db => {
    if (db.embedded || options.asyncCommit) return db;
    asyncSibling ??= createDb({ ...options, asyncCommit: true });
    return asyncSibling;
  };
  // knex.destroy() ends in its client's destroy, which closes the sibling's pool first.
  const client = knex.client as { destroy(callback?: unknown): Promise<void> };
  const destroy = client.destroy.bind(client);
  client.destroy = async (callback?: unknown) => {
    await asyncSibling?.destroy();
    return destroy(callback);
  };
  return Object.assign(db, { asyncCommit });
}

/**
 * The database public reads use. On PostgreSQL a pool of its own (5 connections) whose statements
 * may run readTimeoutMs: anonymous reads can neither take the connections ingestion and leads need
 * nor wait long on a server that does not answer. Each of its connections keeps up to
 * preparedStatements of the public reads' queries prepared (DB_PREPARED_STATEMENTS). Embedded,
 * the one database.
 */
export function createReadDb(db: Db, options: DbOptions & { readTimeoutMs: number; preparedStatements: number }): Db {
  if (db.embedded) return db;
  return createDb({ ...options, statementTimeoutMs: options.readTimeoutMs, poolMax: 5 });
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  if (db.schemaName !== 'public') await db.raw('CREATE SCHEMA IF NOT EXISTS ??', [db.schemaName]);
  const [, applied] = await db.migrate.latest({ migrationSource, schemaName: db.schemaName });
  return applied as string[];
}

export async function migrateDown(db: Db): Promise<void> {
  await db.migrate.rollback({ migrationSource, schemaName: db.schemaName }, true);
}
