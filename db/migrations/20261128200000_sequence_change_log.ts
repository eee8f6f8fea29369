import type { Knex } from 'knex';

/**
 * sequence_change_log(batch): numbers up to `batch` of the change log's rows that have no position
 * yet, in the order they were written, after the last position given (change_log_head, locked for
 * the rest of the transaction, so numberers take turns), and moves the head on; returns how many
 * it numbered. A volatile function's statements each take a fresh snapshot, so the rows it looks
 * for are those committed by the time it holds the head, and none another numberer has just
 * numbered. One round trip where the same steps as separate statements took five
 * (db/change-log.ts, sequenceChanges).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION sequence_change_log(p_batch integer)
    RETURNS integer
    LANGUAGE plpgsql VOLATILE AS $fn$
    DECLARE
      v_last bigint;
      v_numbered integer;
    BEGIN
      SELECT last_seq INTO v_last FROM change_log_head FOR UPDATE;
      WITH pending AS (
        SELECT id, row_number() OVER (ORDER BY id) AS n FROM change_log WHERE seq IS NULL ORDER BY id LIMIT p_batch
      )
      UPDATE change_log c SET seq = v_last + p.n, sequenced_at = clock_timestamp() FROM pending p WHERE c.id = p.id;
      GET DIAGNOSTICS v_numbered = ROW_COUNT;
      IF v_numbered > 0 THEN
        UPDATE change_log_head SET last_seq = v_last + v_numbered;
      END IF;
      RETURN v_numbered;
    END
    $fn$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION sequence_change_log(integer)');
}
