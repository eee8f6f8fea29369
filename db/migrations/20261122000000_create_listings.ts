import type { Knex } from 'knex';

/** The canonical listing store (docs/architecture.md, The canonical listing): identity, ordering and change-detection columns, the record as jsonb. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('listings', (t) => {
    t.text('listing_key').primary({ constraintName: 'listings_pkey' });
    t.text('office').notNullable();
    t.text('unique_id').notNullable();
    t.text('format').notNullable();
    t.text('status').notNullable();
    t.timestamp('mod_time', { useTz: true }).notNullable();
    t.text('content_hash').notNullable();
    t.boolean('hidden').notNullable().defaultTo(false);
    t.jsonb('data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['office', 'unique_id'], { indexName: 'listings_office_unique_id_key' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('listings');
}
