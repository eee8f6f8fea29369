import type { Knex } from 'knex';

/**
 * Webhooks: the endpoints a feed key registered, and each event's delivery to one of them (its
 * payload as signed, its attempts and when the next is due). A delivery row is the durable
 * record of the work: the queue only carries its id, and a sweep re-queues what is due.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.uuid('id').primary();
    t.uuid('key_id').notNullable().references('feed_keys.id');
    t.text('url').notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.text('description');
    t.text('secret').notNullable();
    t.text('previous_secret');
    t.timestamp('previous_secret_until', { useTz: true });
    t.text('status').notNullable().checkIn(['active', 'disabled', 'deleted']);
    t.timestamp('failing_since', { useTz: true });
    t.timestamp('disabled_at', { useTz: true });
    t.text('disabled_reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['key_id', 'status'], 'webhook_endpoints_key_idx');
  });
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.text('id').primary();
    t.bigIncrements('seq', { primaryKey: false });
    t.uuid('endpoint_id').notNullable().references('webhook_endpoints.id');
    t.text('event_type').notNullable();
    t.uuid('feed_id');
    t.text('payload').notNullable();
    t.text('status').notNullable().checkIn(['pending', 'delivered', 'abandoned']);
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('locked_until', { useTz: true });
    t.integer('last_status');
    t.integer('last_latency_ms');
    t.text('last_error');
    t.timestamp('last_attempt_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('delivered_at', { useTz: true });
    t.index(['endpoint_id', 'seq'], 'webhook_deliveries_endpoint_idx');
  });
  await knex.raw("CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhook_endpoints');
}
