import type { Knex } from 'knex';

/**
 * The commit horizon: a time before which every public record that will ever be stamped has
 * committed. A record's updated_at (RESO ModificationTimestamp) is its transaction's stamp, and
 * the record is seen only when that transaction commits, so without care a record stamped
 * 10:00:00.100 could appear after one stamped 10:00:00.200 was read, behind a replicator's
 * checkpoint.
 *
 * change_stamp() (the change log's migration) takes a shared advisory lock keyed by the current
 * millisecond before it reads the clock, and the lock lasts until the transaction ends. So every
 * record stamped before the oldest such lock's moment, and before the moment the locks are looked
 * at, has committed or never will. A read that keeps to records stamped before the horizon, taken
 * in a statement before its own (so before its snapshot), never misses a record that a later read
 * finds below its checkpoint. Only transactions that stamp public records hold it back, and only
 * while they are open (a feed's batch, a directory refresh: milliseconds); on the embedded
 * database, which runs one transaction at a time, it is the moment asked. docs/reso.md, Replication.
 */
export async function commitHorizon(db: Knex): Promise<string> {
  // A lock's key holds (ms mod 2^32) - 2^31 as a signed int4; pg_locks shows it as an unsigned oid.
  // min() leaves out the locks taken after the statement began (before_now null).
  const { rows } = await db.raw(
    `WITH now_ms AS (SELECT floor(extract(epoch FROM now()) * 1000)::bigint AS ms),
          held AS (
            SELECT ((l.objid::text::bigint + 2147483648) % 4294967296) AS v
              FROM pg_locks l
             WHERE l.locktype = 'advisory' AND l.objsubid = 2
               AND l.classid::text::bigint = (hashtext(current_schema())::bigint + 4294967296) % 4294967296
               AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
     SELECT to_char(least(now(), min(to_timestamp((n.ms - d.before_now) / 1000.0)))
                    AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS horizon
       FROM now_ms n
       LEFT JOIN held h ON true
       -- How long before this statement's start each lock's moment was. A lock taken after it began
       -- (a writer that started while the locks were read) comes out just under 2^32 ms "before":
       -- it is from the future, so it holds nothing back (no lock is held 24 days).
       LEFT JOIN LATERAL (SELECT ((n.ms - h.v) % 4294967296 + 4294967296) % 4294967296 AS since) s ON true
       LEFT JOIN LATERAL (SELECT CASE WHEN s.since < 2147483648 THEN s.since END AS before_now) d ON true`,
  );
  return rows[0].horizon;
}
