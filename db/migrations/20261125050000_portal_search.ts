import type { Knex } from 'knex';
import { publicPatch } from '../../pipeline/public-view.js';
import type { CanonicalListing } from '../../pipeline/types.js';
import { CAR_SPACES, GEO_POINT, numberAt, PUBLIC_PRICE, SEARCH_VECTOR } from '../search-columns.js';
import { ADD_PRICE_AMOUNT, createSearchIndexes, SEARCH_INDEXES } from './20261122060000_projects.js';

/** Indexes of the portal search, each over the listings a public read may show. */
export const PORTAL_INDEXES: Record<string, string> = {
  listings_public_locality_idx: 'ON listings (locality_key, mod_time DESC, listing_key) WHERE is_public',
  listings_public_postcode_idx: 'ON listings (postcode_key, mod_time DESC, listing_key) WHERE is_public',
  listings_public_price_sort_idx: "ON listings ((coalesce(price_amount, 'Infinity'::numeric)), listing_key) WHERE is_public",
  listings_public_updated_idx: 'ON listings (updated_at DESC, listing_key) WHERE is_public',
  listings_shown_status_idx: 'ON listings (status, mod_time DESC, listing_key) WHERE is_shown',
  listings_shown_geo_idx: 'ON listings USING gist (geo) WHERE is_shown',
  listings_shown_text_idx: 'ON listings USING gin (search_tsv) WHERE is_shown',
};

/**
 * Portal search (docs/reads.md): columns for each new filter and sort, generated from the stored
 * record and its public patch (price_amount now the public amount, so a withheld price can no
 * longer be found by price bounds), their indexes, the agents' stable ids, and the display fields
 * every public record now carries in its patch (made here for the listings already stored).
 */
export async function up(knex: Knex): Promise<void> {
  for (const idx of SEARCH_INDEXES) await knex.raw(`DROP INDEX ${idx}`);
  await knex.raw('ALTER TABLE listings DROP COLUMN price_amount');
  await knex.raw(`
    ALTER TABLE listings
      ADD COLUMN price_amount numeric GENERATED ALWAYS AS (${PUBLIC_PRICE}) STORED,
      ADD COLUMN locality_key text GENERATED ALWAYS AS (lower(data->'address'->>'locality')) STORED,
      ADD COLUMN region_key text GENERATED ALWAYS AS (lower(data->'address'->>'region')) STORED,
      ADD COLUMN postcode_key text GENERATED ALWAYS AS (upper(replace(data->'address'->>'postcode', ' ', ''))) STORED,
      ADD COLUMN sub_category_key text GENERATED ALWAYS AS (lower(data->>'subCategory')) STORED,
      ADD COLUMN bathrooms numeric GENERATED ALWAYS AS (${numberAt("data->'bathrooms'")}) STORED,
      ADD COLUMN car_spaces numeric GENERATED ALWAYS AS (${CAR_SPACES}) STORED,
      ADD COLUMN land_area numeric GENERATED ALWAYS AS (${numberAt("data->'landAreaSqm'")}) STORED,
      ADD COLUMN sold_date text GENERATED ALWAYS AS (data->'sold'->>'date') STORED,
      ADD COLUMN geo point GENERATED ALWAYS AS (${GEO_POINT}) STORED,
      ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (${SEARCH_VECTOR}) STORED`);
  await createSearchIndexes(knex);
  for (const [name, definition] of Object.entries(PORTAL_INDEXES)) await knex.raw(`CREATE INDEX ${name} ${definition}`);

  await knex.raw(`ALTER TABLE directory_agents ADD COLUMN agent_id text GENERATED ALWAYS AS (substr(md5(office || '/' || agent_key), 1, 16)) STORED`);
  await knex.raw('CREATE UNIQUE INDEX directory_agents_id_idx ON directory_agents (agent_id)');

  let after = '';
  for (;;) {
    const rows: { listing_key: string; data: CanonicalListing }[] = await knex('listings')
      .select('listing_key', 'data')
      .where('listing_key', '>', after)
      .whereNot('status', 'archived')
      .orderBy('listing_key')
      .limit(500);
    if (rows.length === 0) break;
    const values = rows.map(() => '(?, ?::jsonb)').join(', ');
    await knex.raw(
      `UPDATE listings AS l SET public_patch = v.patch FROM (VALUES ${values}) AS v(key, patch) WHERE l.listing_key = v.key`,
      rows.flatMap((r) => [r.listing_key, JSON.stringify(publicPatch(r.data))]),
    );
    after = rows[rows.length - 1].listing_key;
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX directory_agents_id_idx');
  await knex.raw('ALTER TABLE directory_agents DROP COLUMN agent_id');
  for (const name of Object.keys(PORTAL_INDEXES)) await knex.raw(`DROP INDEX ${name}`);
  for (const idx of SEARCH_INDEXES) await knex.raw(`DROP INDEX ${idx}`);
  await knex.raw(`ALTER TABLE listings DROP COLUMN price_amount, DROP COLUMN locality_key, DROP COLUMN region_key, DROP COLUMN postcode_key,
    DROP COLUMN sub_category_key, DROP COLUMN bathrooms, DROP COLUMN car_spaces, DROP COLUMN land_area, DROP COLUMN sold_date, DROP COLUMN geo, DROP COLUMN search_tsv`);
  await knex.raw(ADD_PRICE_AMOUNT);
  await createSearchIndexes(knex);
}
