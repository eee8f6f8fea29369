import type { Knex } from 'knex';

/**
 * What the operator console shows that the service did not keep: when each feed key was last
 * used, enquiries refused before they became leads (counts per day and reason), and queue depths
 * sampled each minute (kept a week).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('feed_keys', (t) => t.timestamp('last_used_at', { useTz: true }));
  await knex.schema.createTable('lead_refusals', (t) => {
    t.date('day').notNullable();
    t.text('reason').notNullable();
    t.integer('count').notNullable();
    t.primary(['day', 'reason']);
  });
  await knex.schema.createTable('queue_depth_samples', (t) => {
    t.timestamp('at', { useTz: true }).primary();
    t.integer('ingest').notNullable();
    t.integer('lead_delivery').notNullable();
    t.integer('webhook_delivery').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('queue_depth_samples');
  await knex.schema.dropTable('lead_refusals');
  await knex.schema.alterTable('feed_keys', (t) => t.dropColumn('last_used_at'));
}
