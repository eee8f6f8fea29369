import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import pg from 'pg';
import { lockEmbeddedDb } from './embedded-lock.js';
import { migrationSource } from './migration-source.js';
import { openPglite } from './open-pglite.js';
import { prepareMarkedQueries } from './prepared-statements.js';
import { QueryTurns } from './query-turns.js';

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
  /**
   * PostgreSQL only: a pool that only reads (the public reads'): its sessions are read-only, so no
   * anonymous request can write through them, and named READ_POOL_NAME in pg_stat_activity.
   */
  readOnly?: boolean;
}

/** application_name of the public-read pool's sessions. */
export const READ_POOL_NAME = 'listings-public-read';

/** How long a query waits for the embedded database's one connection (knex's default is 60 s). */
const EMBEDDED_ACQUIRE_TIMEOUT_MS = 180_000;

/** knex's client class, as far as the embedded client below reaches into it. */
type PoolSettingsClient = new (
  config: Knex.Config,
) => {
  getPoolSettings(pool: unknown): Record<string, unknown>;
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
};

/**
 * knex-pglite, its one connection allowed as long to be made as a query may wait for it (the pool
 * otherwise gives the making of a connection, which waits for PGlite to be ready, 30 s), and
 * handed out in turns (db/query-turns.ts): each in a turn of the event loop of its own, a
 * request's before background work's. A transaction's statements run on the connection it took.
 */
class EmbeddedClient extends (ClientPgLite as unknown as PoolSettingsClient) {
  readonly turns = new QueryTurns();

  override getPoolSettings(pool: unknown): Record<string, unknown> {
    return { ...super.getPoolSettings(pool), createTimeoutMillis: EMBEDDED_ACQUIRE_TIMEOUT_MS };
  }

  override async acquireConnection(): Promise<unknown> {
    await this.turns.take();
    try {
      return await super.acquireConnection();
    } catch (err) {
      this.turns.give();
      throw err;
    }
  }

  override releaseConnection(connection: unknown): Promise<void> {
    const released = super.releaseConnection(connection);
    this.turns.give();
    return released;
  }
}

/** A pg connection as the pool hands it to afterCreate, as far as this module uses it. */
interface PoolConnection {
  query(config: unknown, ...rest: unknown[]): unknown;
  on(event: 'error', listener: () => void): unknown;
  /** knex's mark: a connection carrying it is destroyed instead of going back to the pool. */
  __knex__disposed?: string;
  connection?: { stream?: { destroy(): void }; parsedStatements?: Record<string, string> };
}

/** What pg says when a query got no answer within its query_timeout. */
const QUERY_READ_TIMEOUT = 'Query read timeout';

/**
 * A connection whose query went unanswered (a server or proxy holding the connection) cannot be
 * used again: the late answer would be taken for the next query's. It is closed and marked so the
 * pool makes a new one.
 */
function disposeOnReadTimeout(conn: PoolConnection): void {
  const query = conn.query.bind(conn);
  conn.query = (config: unknown, ...rest: unknown[]) => {
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
  /**
   * Calls `onNotify` with the payload of every notification on `channel` (PostgreSQL's NOTIFY,
   * delivered when the notifying transaction commits). On PostgreSQL a connection of its own,
   * opened again after it is lost (notifications meanwhile are missed: callers also poll). Resolves
   * to a function that stops listening.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
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
      connection: {
        connectionString: options.databaseUrl,
        connectionTimeoutMillis: 3000,
        query_timeout: statementTimeoutMs + 1000,
        ...(options.readOnly ? { application_name: READ_POOL_NAME } : {}),
      },
      searchPath: [schema],
      pool: {
        min: 0,
        max: options.poolMax ?? 10,
        afterCreate(conn: PoolConnection, done: (err: Error | null, conn: unknown) => void) {
          // An idle client that loses its server must not crash the process.
          conn.on('error', () => undefined);
          disposeOnReadTimeout(conn);
          const prepared = options.preparedStatements ?? 0;
          if (prepared > 0) prepareMarkedQueries(conn, prepared);
          const commit = `${options.asyncCommit ? '; SET synchronous_commit = off' : ''}${options.readOnly ? '; SET default_transaction_read_only = on' : ''}`;
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
    knex = knexFactory({
      client: EmbeddedClient as unknown as typeof Knex.Client,
      dialect: 'postgres',
      connection: { pglite },
      searchPath: [schema],
      // The one connection is first handed out when PGlite is ready: on a new folder that includes
      // initdb, which took 42 s on this 2-core machine with both cores busy (3 s when quiet).
      acquireConnectionTimeout: EMBEDDED_ACQUIRE_TIMEOUT_MS,
    } as Knex.Config);
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
  const listen = options.databaseUrl ? listenOnPostgres(options.databaseUrl) : listenOnPglite(knex);
  const db = Object.assign(knex, { embedded: !options.databaseUrl, schemaName: schema, tookOverLockFrom, listen }) as Db;
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

/** Db.listen on PostgreSQL: a pg client of its own per listener, reconnected a second after it is lost. */
function listenOnPostgres(databaseUrl: string): Db['listen'] {
  return async (channel, onNotify) => {
    let client: pg.Client | null = null;
    let stopped = false;
    let retry: NodeJS.Timeout | null = null;
    const connect = async (): Promise<void> => {
      if (stopped) return;
      const next = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
      const reconnect = () => {
        if (client !== next || stopped) return;
        client = null;
        next.end().catch(() => undefined);
        retry = setTimeout(() => void connect(), 1000);
        retry.unref();
      };
      next.on('error', reconnect);
      next.on('end', reconnect);
      next.on('notification', (message) => {
        if (message.channel === channel) onNotify(message.payload ?? '');
      });
      client = next;
      try {
        await next.connect();
        await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      } catch {
        reconnect();
      }
    };
    await connect();
    return async () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      const last = client;
      client = null;
      await last?.end().catch(() => undefined);
    };
  };
}

/** Db.listen on the embedded database: PGlite's own listener. */
function listenOnPglite(knex: Knex): Db['listen'] {
  return async (channel, onNotify) => {
    const pglite = (knex.client as { config: { connection: { pglite: PGlite } } }).config.connection.pglite;
    return pglite.listen(channel, onNotify);
  };
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
  return createDb({ ...options, statementTimeoutMs: options.readTimeoutMs, poolMax: 5, readOnly: true });
}

/**
 * Applies the migrations not yet applied; resolves to their names. On PostgreSQL the web, worker
 * and SFTP roles may start together against a new database: each takes a session advisory lock
 * for the schema first (on a connection of its own, polled so that no statement timeout ends the
 * wait), so one migrates and the others then find nothing left to do. Without it two roles both
 * create knex's own bookkeeping table and one fails to start.
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  if (await upToDate(db)) return [];
  if (db.embedded) return migrateUnlocked(db); // one process per folder already (embedded-lock)
  const conn = (await db.client.acquireConnection()) as pg.Client;
  const key = ['listing-service migrations', db.schemaName];
  try {
    for (;;) {
      const { rows } = await conn.query('SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS locked', key);
      if (rows[0].locked) break;
      await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_POLL_MS));
    }
    try {
      return await migrateUnlocked(db);
    } finally {
      await conn.query('SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', key);
    }
  } finally {
    await db.client.releaseConnection(conn);
  }
}

const MIGRATION_LOCK_POLL_MS = 100;

/**
 * Whether the schema has every migration applied and no other: one query, where knex's migrator
 * (its modules, its lock table, several queries) took 0.1-0.4 s of every start to find there was
 * nothing to do. Any other state (no migrations table, a migration not yet applied, one applied
 * that the source does not list) goes to the migrator, which applies or refuses as it always has.
 */
async function upToDate(db: Db): Promise<boolean> {
  const { rows } = await db.raw<{ rows: { exists: boolean }[] }>("SELECT to_regclass(quote_ident(?) || '.knex_migrations') IS NOT NULL AS exists", [
    db.schemaName,
  ]);
  if (!rows[0]?.exists) return false;
  const applied = new Set((await db.withSchema(db.schemaName).select('name').from('knex_migrations')).map((row: { name: string }) => row.name));
  const listed = await migrationSource.getMigrations([]);
  return applied.size === listed.length && listed.every((name) => applied.has(name));
}

async function migrateUnlocked(db: Db): Promise<string[]> {
  if (db.schemaName !== 'public') await db.raw('CREATE SCHEMA IF NOT EXISTS ??', [db.schemaName]);
  const [, applied] = await db.migrate.latest({ migrationSource, schemaName: db.schemaName });
  return applied as string[];
}

export async function migrateDown(db: Db): Promise<void> {
  await db.migrate.rollback({ migrationSource, schemaName: db.schemaName }, true);
}
