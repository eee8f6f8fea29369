import type { Knex } from 'knex';

/**
 * Feed events keep what an integrator may see apart from what only operators may: `error` is a
 * plain sentence, `error_detail` the internal cause (database or stack text) for the log and the
 * admin view. `progress` holds the counts so far while a feed runs. `body_purged_at`: when the raw
 * body was deleted after FEED_BODY_RETENTION_DAYS (the event and its result stay).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('feed_events', (t) => {
    t.text('error_detail');
    t.jsonb('progress');
    t.timestamp('body_purged_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('feed_events', (t) => {
    t.dropColumn('error_detail');
    t.dropColumn('progress');
    t.dropColumn('body_purged_at');
  });
}
