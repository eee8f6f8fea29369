import type { Knex } from 'knex';

/**
 * The fingerprint of the source a listing was last written from (pipeline/feed-listing.ts): a
 * re-sent listing with the same fingerprint is unchanged without being mapped again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('listings', (t) => {
    t.text('source_hash');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('listings', (t) => {
    t.dropColumn('source_hash');
  });
}
