import type { Knex } from 'knex';

/**
 * Public reads (docs/architecture.md, The canonical listing and Reads): search columns generated from the stored record (one source of
 * truth, nothing for the write path to keep in step), partial indexes over public listings in
 * search order, and the agent and office directory, refreshed per office as feeds land.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE listings
      ADD COLUMN is_public boolean GENERATED ALWAYS AS (NOT hidden AND status IN ('active', 'under_offer')) STORED,
      ADD COLUMN country text GENERATED ALWAYS AS (data->'address'->>'country') STORED,
      ADD COLUMN category text GENERATED ALWAYS AS (data->>'category') STORED,
      ADD COLUMN sale_mode text GENERATED ALWAYS AS (data->>'saleMode') STORED,
      -- sale listings: the sale price; rent listings: the weekly rent (monthly rent x 12 / 52)
      ADD COLUMN price_amount numeric GENERATED ALWAYS AS (
        CASE WHEN data->>'saleMode' = 'rent' THEN
          CASE WHEN data->'rent'->>'period' = 'month' THEN round((data->'rent'->>'amount')::numeric * 12 / 52, 2)
               ELSE (data->'rent'->>'amount')::numeric END
        ELSE (data->'price'->>'amount')::numeric END) STORED,
      ADD COLUMN bedrooms numeric GENERATED ALWAYS AS ((data->>'bedrooms')::numeric) STORED
  `);
  const filters = 'INCLUDE (category, price_amount, bedrooms) WHERE is_public';
  await knex.raw(`CREATE INDEX listings_public_recent_idx ON listings (mod_time DESC, listing_key) ${filters}`);
  await knex.raw(`CREATE INDEX listings_public_country_idx ON listings (country, mod_time DESC, listing_key) ${filters}`);
  await knex.raw(`CREATE INDEX listings_public_country_mode_idx ON listings (country, sale_mode, mod_time DESC, listing_key) ${filters}`);
  await knex.raw(`CREATE INDEX listings_public_office_idx ON listings (office, mod_time DESC, listing_key) ${filters}`);

  await knex.schema.createTable('directory_offices', (t) => {
    t.text('office').primary();
    t.integer('listing_count').notNullable();
    t.specificType('countries', 'text[]').notNullable();
    /** Public listings per country, for GET /v1/countries. */
    t.jsonb('country_counts').notNullable();
    t.specificType('localities', 'text[]').notNullable();
    t.double('lat');
    t.double('lng');
    /** Lower-case office id and localities, for the case-insensitive query. */
    t.text('search_text').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('directory_agents', (t) => {
    t.text('office').notNullable();
    /** Lower-case email, or `name:` and the lower-case name when there is no email. */
    t.text('agent_key').notNullable();
    t.text('name');
    t.text('email');
    t.jsonb('phones').notNullable();
    t.integer('listing_count').notNullable();
    t.specificType('countries', 'text[]').notNullable();
    t.specificType('localities', 'text[]').notNullable();
    t.text('search_text').notNullable();
    t.primary(['office', 'agent_key']);
    t.index(['listing_count'], 'directory_agents_count_idx');
  });
  // Substring search on names and localities: trigram indexes. The extension lives in public so
  // that schemas sharing a database (tests) share it and dropping one schema leaves it alone.
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public');
  await knex.raw('CREATE INDEX directory_agents_search_idx ON directory_agents USING gin (search_text public.gin_trgm_ops)');
  await knex.raw('CREATE INDEX directory_offices_search_idx ON directory_offices USING gin (search_text public.gin_trgm_ops)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('directory_agents');
  await knex.schema.dropTable('directory_offices');
  for (const idx of ['listings_public_recent_idx', 'listings_public_country_idx', 'listings_public_country_mode_idx', 'listings_public_office_idx']) {
    await knex.raw(`DROP INDEX ${idx}`);
  }
  await knex.raw(
    'ALTER TABLE listings DROP COLUMN is_public, DROP COLUMN country, DROP COLUMN category, DROP COLUMN sale_mode, DROP COLUMN price_amount, DROP COLUMN bedrooms',
  );
}
