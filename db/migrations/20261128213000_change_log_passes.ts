import type { Knex } from 'knex';

/**
 * sequence_change_log_passing(batch, readers): numbers the change log as sequence_change_log does,
 * then, in the same transaction, lets each of the named log readers pass over what it would do
 * nothing with, and answers which readers still need a turn of their own. `readers` is a JSON
 * array of { name, rows, kinds, consumers }: the reader's cursor (change_log_cursors), the most
 * rows it reads in a turn, the rows it acts on ('Resource:kind') and a query answering whether
 * anything would receive what it makes of them (its endpoints, its saved searches). A reader
 * passes when its cursor is free (SKIP LOCKED: one in a turn is left to it), fewer than `rows`
 * rows follow the cursor, and none of them is of its kinds or nothing consumes them: its cursor
 * moves past them, as its own turn would have moved it having made nothing of them. Otherwise
 * it is named in `turns`. A 1-listing push's rows (a listing published, its office's directory
 * rows changed) are passed by every reader that has nothing to do with them in the round trip
 * that numbers them, where each reader's turn was a transaction of four to six statements
 * (workers/change-log/change-sequencer.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION sequence_change_log_passing(p_batch integer, p_readers jsonb, OUT numbered integer, OUT turns text[])
    LANGUAGE plpgsql VOLATILE AS $fn$
    DECLARE
      v_reader jsonb;
      v_name text;
      v_kinds text[];
      v_cursor bigint;
      v_rows integer;
      v_last bigint;
      v_wanted boolean;
      v_consumed boolean;
    BEGIN
      numbered := sequence_change_log(p_batch);
      turns := '{}';
      FOR v_reader IN SELECT r FROM jsonb_array_elements(p_readers) AS r LOOP
        v_name := v_reader->>'name';
        SELECT c.seq INTO v_cursor FROM change_log_cursors c WHERE c.name = v_name FOR UPDATE SKIP LOCKED;
        IF NOT FOUND THEN
          turns := turns || v_name;
          CONTINUE;
        END IF;
        v_kinds := ARRAY(SELECT jsonb_array_elements_text(v_reader->'kinds'));
        SELECT count(*), max(b.seq), coalesce(bool_or(b.resource || ':' || b.kind = ANY(v_kinds)), false)
          INTO v_rows, v_last, v_wanted
          FROM (SELECT l.seq, l.resource, l.kind FROM change_log l WHERE l.seq > v_cursor ORDER BY l.seq LIMIT (v_reader->>'rows')::integer) b;
        CONTINUE WHEN v_rows = 0;
        v_consumed := false;
        IF v_wanted THEN
          EXECUTE v_reader->>'consumers' INTO v_consumed;
        END IF;
        IF v_rows >= (v_reader->>'rows')::integer OR v_consumed THEN
          turns := turns || v_name;
          CONTINUE;
        END IF;
        UPDATE change_log_cursors SET seq = v_last WHERE name = v_name;
      END LOOP;
    END
    $fn$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION sequence_change_log_passing(integer, jsonb)');
}
