import type { Knex } from 'knex';

/**
 * What became of a feed, kept as a column the database works out from the event's status and
 * result, so lists can be filtered by it (a key's own feed history, the operators' problem feeds)
 * and every reader gets the same word: queued, running, failed and rejected as the status says;
 * for a finished feed not_well_formed (the feed could not be read to its end), tripped (the
 * circuit breaker held a full feed's archive), with_invalid (some listings or projects refused),
 * else ok. The index serves a key's history, newest first. (`\\?` is knex's escape for the
 * jsonpath filter's question mark, which it would otherwise take for a binding.)
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE feed_events ADD COLUMN outcome text GENERATED ALWAYS AS (
      CASE
        WHEN status <> 'done' THEN status
        WHEN jsonb_path_exists(result, '$.issues[*] \\? (@.code == "feed_not_well_formed")') THEN 'not_well_formed'
        WHEN result->'reconcile'->>'status' = 'tripped' THEN 'tripped'
        WHEN result->>'ok' = 'false' OR coalesce((result->'counts'->>'invalid')::numeric, 0) > 0 THEN 'with_invalid'
        ELSE 'ok'
      END
    ) STORED`);
  await knex.raw('CREATE INDEX feed_events_key_created_idx ON feed_events (key_id, created_at DESC, id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX feed_events_key_created_idx');
  await knex.raw('ALTER TABLE feed_events DROP COLUMN outcome');
}
