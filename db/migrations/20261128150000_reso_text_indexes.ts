import type { Knex } from 'knex';

/**
 * The RESO text functions a portal sends, planned on indexes (docs/reso.md, Indexes):
 * `contains(City,'…')`, `contains(tolower(City),'…')` and `tolower(City) eq '…'` on a trigram
 * index (pg_trgm, installed by 20261122030000_search_and_directory on PostgreSQL and loaded by
 * PGlite) of the lowered City, and `startswith(PostalCode,'…')` on a text_pattern_ops btree, which
 * answers a LIKE prefix whatever the database's collation. The expressions are Property's City and
 * PostalCode as db/reso-resources.ts has them (a test checks the plans use these indexes): written
 * out here, as a migration must not change when that file does.
 */
const CITY = `coalesce(public_patch->'address', data->'address')->>'locality'`;
const POSTCODE = `coalesce(public_patch->'address', data->'address')->>'postcode'`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX listings_reso_city_trgm_idx ON listings USING gin (lower(${CITY}) public.gin_trgm_ops)`);
  await knex.raw(`CREATE INDEX listings_reso_postcode_prefix_idx ON listings ((${POSTCODE}) text_pattern_ops)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX listings_reso_postcode_prefix_idx');
  await knex.raw('DROP INDEX listings_reso_city_trgm_idx');
}
