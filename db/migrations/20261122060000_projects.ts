import type { Knex } from 'knex';

export const SEARCH_INDEXES = ['listings_public_recent_idx', 'listings_public_country_idx', 'listings_public_country_mode_idx', 'listings_public_office_idx'];

/** Search indexes over public listings (as in 20261122030000), rebuilt when price_amount changes. */
export async function createSearchIndexes(knex: Knex): Promise<void> {
  const filters = 'INCLUDE (category, price_amount, bedrooms) WHERE is_public';
  await knex.raw(`CREATE INDEX listings_public_recent_idx ON listings (mod_time DESC, listing_key) ${filters}`);
  await knex.raw(`CREATE INDEX listings_public_country_idx ON listings (country, mod_time DESC, listing_key) ${filters}`);
  await knex.raw(`CREATE INDEX listings_public_country_mode_idx ON listings (country, sale_mode, mod_time DESC, listing_key) ${filters}`);
  await knex.raw(`CREATE INDEX listings_public_office_idx ON listings (office, mod_time DESC, listing_key) ${filters}`);
}

/** price_amount as this migration defines it: the stored sale price, or the weekly rent (monthly x 12 / 52, yearly / 52). */
export const ADD_PRICE_AMOUNT = `
    ALTER TABLE listings ADD COLUMN price_amount numeric GENERATED ALWAYS AS (
      CASE WHEN data->>'saleMode' = 'rent' THEN
        CASE data->'rent'->>'period'
          WHEN 'month' THEN round((data->'rent'->>'amount')::numeric * 12 / 52, 2)
          WHEN 'year' THEN round((data->'rent'->>'amount')::numeric / 52, 2)
          ELSE (data->'rent'->>'amount')::numeric END
      ELSE (data->'price'->>'amount')::numeric END) STORED`;

/**
 * Projects (docs/architecture.md, Formats and mapping): the project store, the link from child listings (a generated
 * project_key column), projects held by a tripped breaker, and price_amount for yearly rents
 * (commercial leases, RESO annual leases), which the first version compared as weekly.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('projects', (t) => {
    t.text('project_key').primary();
    t.text('office').notNullable();
    t.text('unique_id').notNullable();
    t.text('status').notNullable();
    t.text('stage').notNullable();
    t.text('country').notNullable();
    t.timestamp('mod_time', { useTz: true }).notNullable();
    t.text('content_hash').notNullable();
    t.jsonb('data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['office', 'unique_id'], { indexName: 'projects_office_unique_id_key' });
  });
  await knex.raw("CREATE INDEX projects_public_idx ON projects (mod_time DESC, project_key) WHERE status <> 'archived'");

  await knex.raw("ALTER TABLE listings ADD COLUMN project_key text GENERATED ALWAYS AS (data->>'projectKey') STORED");
  await knex.raw('CREATE INDEX listings_project_idx ON listings (project_key) WHERE project_key IS NOT NULL');

  await knex.schema.alterTable('quarantine_items', (t) => {
    t.jsonb('project_keys').notNullable().defaultTo('[]');
  });

  for (const idx of SEARCH_INDEXES) await knex.raw(`DROP INDEX ${idx}`);
  await knex.raw('ALTER TABLE listings DROP COLUMN price_amount');
  await knex.raw(ADD_PRICE_AMOUNT);
  await createSearchIndexes(knex);
}

export async function down(knex: Knex): Promise<void> {
  for (const idx of SEARCH_INDEXES) await knex.raw(`DROP INDEX ${idx}`);
  await knex.raw('ALTER TABLE listings DROP COLUMN price_amount');
  await knex.raw(`
    ALTER TABLE listings ADD COLUMN price_amount numeric GENERATED ALWAYS AS (
      CASE WHEN data->>'saleMode' = 'rent' THEN
        CASE WHEN data->'rent'->>'period' = 'month' THEN round((data->'rent'->>'amount')::numeric * 12 / 52, 2)
             ELSE (data->'rent'->>'amount')::numeric END
      ELSE (data->'price'->>'amount')::numeric END) STORED`);
  await createSearchIndexes(knex);
  await knex.schema.alterTable('quarantine_items', (t) => t.dropColumn('project_keys'));
  await knex.raw('DROP INDEX listings_project_idx');
  await knex.raw('ALTER TABLE listings DROP COLUMN project_key');
  await knex.schema.dropTable('projects');
}
