import type { Knex } from 'knex';

/** Leads (docs/architecture.md, Leads): the lead rows double as the delivery outbox; the sender blocklist; office lead addresses. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('leads', (t) => {
    t.uuid('id').primary();
    t.text('status').notNullable().checkIn(['pending', 'sending', 'delivered', 'failed', 'purged', 'dead_letter']);
    t.text('listing_key').notNullable();
    t.text('office').notNullable();
    t.text('unique_id').notNullable();
    /** { name, email, phone, message }; erased when purged. */
    t.jsonb('contact').notNullable();
    t.text('recipient');
    t.text('recipient_source');
    /** Delivery attempts so far, and operator retries (each retry is a new job). */
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('retries').notNullable().defaultTo(0);
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('sending_at', { useTz: true });
    t.timestamp('delivered_at', { useTz: true });
    t.timestamp('purged_at', { useTz: true });
    t.index(['status', 'updated_at'], 'leads_status_idx');
    t.index(['created_at'], 'leads_created_idx');
  });
  await knex.schema.createTable('blocklist', (t) => {
    t.text('id').primary();
    t.text('kind').notNullable().checkIn(['email', 'domain']);
    t.text('value').notNullable();
    t.text('reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['kind', 'value'], { indexName: 'blocklist_kind_value_key' });
  });
  await knex.schema.createTable('office_settings', (t) => {
    t.text('office').primary();
    t.text('lead_email');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['office_settings', 'blocklist', 'leads']) await knex.schema.dropTable(table);
}
