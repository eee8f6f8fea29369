import type { Knex } from 'knex';

/**
 * RESO replication reads every listing a public read may show (on the market, sold or leased) in
 * ModificationTimestamp (updated_at) and key order, page after page: an index in that order over
 * exactly those rows (db/reso-resources.ts, visibleListing: the condition is spelt out here so
 * that this migration stays as it ran) answers each page with a short range scan.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE INDEX listings_reso_replication_idx ON listings (updated_at, listing_key) WHERE is_shown AND status IN ('active', 'under_offer', 'sold', 'leased')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX listings_reso_replication_idx');
}
