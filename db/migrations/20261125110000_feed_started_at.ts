import type { Knex } from 'knex';

/** When a feed's processing last started (a worker claimed it): the time it waited in the queue is started_at - created_at. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('feed_events', (t) => t.timestamp('started_at', { useTz: true }));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('feed_events', (t) => t.dropColumn('started_at'));
}
