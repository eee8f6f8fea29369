import { createReadDb, type Db } from './knex.js';

/** How the read replica stands, as readiness and /metrics show it. */
export interface ReplicaState {
  /** ok: public reads go to the replica; unavailable: it does not answer, and they go to the primary. */
  state: 'ok' | 'unavailable';
  /** Seconds its last replayed change is behind the primary (0 when it has replayed everything); null while unavailable. */
  lagSeconds: number | null;
  /** Bytes of the primary's write-ahead log not yet replayed; null while unavailable. */
  lagBytes: number | null;
  /** When it was last looked at. */
  checkedAt: string | null;
}

export interface ReplicaReads {
  /** The database public reads use: the replica while it answers, else the primary. */
  db: Db;
  state(): ReplicaState;
  /** Looks at the replica now (the probe does so every probeMs). */
  probe(): Promise<ReplicaState>;
  close(): Promise<void>;
}

/**
 * Public reads from a streaming replica (DATABASE_READ_URL): `db` sends every query to the replica
 * while its last probe found it answering and in recovery (a replica), and to the primary's read
 * pool otherwise, so a replica that is lost or being rebuilt costs the public reads nothing but the
 * primary's time (a read already on its way to a replica that dies fails once, 503, as on any
 * database loss). Every probeMs it asks the replica how far behind it is: the primary's WAL
 * position against the replica's replayed one (bytes), and the age of the last replayed
 * transaction when bytes are still outstanding (seconds; 0 when it has replayed everything, so an
 * idle primary does not read as lag).
 */
export function replicaReads(primary: Db, replica: Db, options: { probeMs: number; onChange?: (state: ReplicaState) => void }): ReplicaReads {
  let current: ReplicaState = { state: 'unavailable', lagSeconds: null, lagBytes: null, checkedAt: null };
  const target = () => (current.state === 'ok' ? replica : primary);
  const probe = async (): Promise<ReplicaState> => {
    let next: ReplicaState;
    try {
      const { rows } = await replica.raw(
        `SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS replayed,
                extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 AS age`,
      );
      const [{ recovery, replayed, age }] = rows as { recovery: boolean; replayed: string | null; age: number | null }[];
      if (!recovery || !replayed) throw new Error('DATABASE_READ_URL is not a replica in recovery');
      const { rows: behind } = await primary.raw('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ?::pg_lsn)::float8 AS bytes', [replayed]);
      const bytes = Math.max(0, Number(behind[0].bytes));
      next = { state: 'ok', lagBytes: bytes, lagSeconds: bytes === 0 ? 0 : Math.max(0, Number(age ?? 0)), checkedAt: new Date().toISOString() };
    } catch {
      next = { state: 'unavailable', lagSeconds: null, lagBytes: null, checkedAt: new Date().toISOString() };
    }
    const changed = next.state !== current.state;
    current = next;
    if (changed) options.onChange?.(next);
    return next;
  };
  const timer = setInterval(() => void probe(), options.probeMs);
  timer.unref();
  // A function object, so `db(table)` works; every property is the current target's own.
  const db = new Proxy(function replicaOrPrimary() {}, {
    apply: (_fn, _this, args: unknown[]) => (target() as unknown as (...a: unknown[]) => unknown)(...args),
    get: (_fn, name) => {
      const db = target();
      const value = Reflect.get(db, name, db);
      return typeof value === 'function' ? value.bind(db) : value;
    },
    has: (_fn, name) => Reflect.has(target(), name),
  }) as unknown as Db;
  return {
    db,
    state: () => current,
    probe,
    async close() {
      clearInterval(timer);
      await replica.destroy();
    },
  };
}

/** How often the replica is looked at. */
export const REPLICA_PROBE_MS = 2000;

/**
 * The public reads' database as a role opens it: the primary's read pool, or with a replica URL
 * (PostgreSQL only) the replica while it answers and that pool when it does not. The replica is
 * looked at once before this resolves, so the first reads already go where they should.
 */
export async function openPublicReadDb(
  db: Db,
  options: { databaseUrl: string | null; databaseReadUrl: string | null; dataDir: string; schema?: string; readTimeoutMs: number; preparedStatements: number },
  onChange?: (state: ReplicaState) => void,
): Promise<{ readDb: Db; replica: ReplicaReads | null; close(): Promise<void> }> {
  const primaryReads = createReadDb(db, options);
  if (!options.databaseReadUrl || db.embedded) return { readDb: primaryReads, replica: null, close: () => closeUnlessShared(primaryReads, db) };
  const replica = replicaReads(primaryReads, createReadDb(db, { ...options, databaseUrl: options.databaseReadUrl }), { probeMs: REPLICA_PROBE_MS, onChange });
  await replica.probe();
  return {
    readDb: replica.db,
    replica,
    async close() {
      await replica.close();
      await closeUnlessShared(primaryReads, db);
    },
  };
}

const closeUnlessShared = async (readDb: Db, db: Db) => {
  if (readDb !== db) await readDb.destroy();
};
