import type { Knex } from 'knex';

/**
 * run_after_locks(locks, statements, arg): takes the transaction-scoped advisory locks named by
 * `locks` (hashed, in sorted order), then runs each statement with `arg` as $1. A volatile
 * function's every statement takes a fresh snapshot, so the statements see whatever committed
 * while the locks were awaited: one round trip does what BEGIN, a lock, the statements and COMMIT
 * did in several. The directory refresh of a small feed's offices uses it (db/directory.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION run_after_locks(locks text[], statements text[], arg text[]) RETURNS void
    LANGUAGE plpgsql VOLATILE AS $fn$
    DECLARE
      statement text;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtext(l)) FROM (SELECT l FROM unnest(locks) l ORDER BY l) sorted;
      FOREACH statement IN ARRAY statements LOOP
        EXECUTE statement USING arg;
      END LOOP;
    END
    $fn$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION run_after_locks(text[], text[], text[])');
}
