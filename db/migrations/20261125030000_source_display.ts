import type { Knex } from 'knex';
import { createSearchIndexes, SEARCH_INDEXES } from './20261122060000_projects.js';

/** Not hidden by an operator, and not withheld from the internet by the listing's source (RESO InternetEntireListingDisplayYN false). */
const SHOWN = `NOT hidden AND coalesce(data->'internetDisplay'->>'listing', 'true') <> 'false'`;

/**
 * A listing its source withholds from the internet is in no public read: is_shown (may a public
 * read show it in any status) joins is_public (shown, and on the market), which the search
 * indexes are built on. Both are generated from the stored record, so writes need no change.
 */
export async function up(knex: Knex): Promise<void> {
  for (const idx of SEARCH_INDEXES) await knex.raw(`DROP INDEX ${idx}`);
  await knex.raw('ALTER TABLE listings DROP COLUMN is_public');
  await knex.raw(`
    ALTER TABLE listings
      ADD COLUMN is_shown boolean GENERATED ALWAYS AS (${SHOWN}) STORED,
      ADD COLUMN is_public boolean GENERATED ALWAYS AS (${SHOWN} AND status IN ('active', 'under_offer')) STORED`);
  await createSearchIndexes(knex);
}

export async function down(knex: Knex): Promise<void> {
  for (const idx of SEARCH_INDEXES) await knex.raw(`DROP INDEX ${idx}`);
  await knex.raw('ALTER TABLE listings DROP COLUMN is_public, DROP COLUMN is_shown');
  await knex.raw(`ALTER TABLE listings ADD COLUMN is_public boolean GENERATED ALWAYS AS (NOT hidden AND status IN ('active', 'under_offer')) STORED`);
  await createSearchIndexes(knex);
}
