import type { Knex } from 'knex';
import { PORTAL_INDEXES } from './20261125050000_portal_search.js';

/**
 * Indexes that let the heavier portal searches stop early (docs/reads.md, How searches use the
 * indexes):
 * - the map index carries what a map search filters and sorts by (public or not, status, modTime,
 *   key), so a box holding thousands of listings is read from the index alone;
 * - price sorts have one index per direction, led by the sale mode (a sale search skips the rentals,
 *   whose weekly amounts would otherwise all come first), in place of the one without it.
 */
const GEO = 'ON listings USING gist (geo) INCLUDE (is_public, status, mod_time, listing_key) WHERE is_shown';
export const SORT_INDEXES: Record<string, string> = {
  listings_public_price_asc_idx: "ON listings (sale_mode, (coalesce(price_amount, 'Infinity'::numeric)), listing_key) WHERE is_public",
  listings_public_price_desc_idx: "ON listings (sale_mode, (coalesce(price_amount, '-Infinity'::numeric)), listing_key) WHERE is_public",
};

export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX listings_shown_geo_idx');
  await knex.raw(`CREATE INDEX listings_shown_geo_idx ${GEO}`);
  await knex.raw('DROP INDEX listings_public_price_sort_idx');
  for (const [name, definition] of Object.entries(SORT_INDEXES)) await knex.raw(`CREATE INDEX ${name} ${definition}`);
}

export async function down(knex: Knex): Promise<void> {
  for (const name of Object.keys(SORT_INDEXES)) await knex.raw(`DROP INDEX ${name}`);
  await knex.raw(`CREATE INDEX listings_public_price_sort_idx ${PORTAL_INDEXES.listings_public_price_sort_idx}`);
  await knex.raw('DROP INDEX listings_shown_geo_idx');
  await knex.raw(`CREATE INDEX listings_shown_geo_idx ${PORTAL_INDEXES.listings_shown_geo_idx}`);
}
