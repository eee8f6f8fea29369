import type { Knex } from 'knex';
import { latestOfficeField } from '../directory.js';

/**
 * An office's logo in the directory (its listings' source gives it: RESO Media with MediaCategory
 * Office Logo, kept as listingOffices[].logoUrl of the listing office), from the latest public
 * listing that has one. Filled here for the offices already listed; kept current by each refresh.
 * Listings stored before their mapping kept the logo gain it when their feed sends them again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('directory_offices', (t) => t.text('logo_url'));
  await knex.raw(`
    UPDATE directory_offices d SET logo_url = n.logo_url
    FROM (
      SELECT office, ${latestOfficeField('o', 'logoUrl')} AS logo_url
      FROM listings, jsonb_array_elements(data->'listingOffices') o
      WHERE is_public AND o->>'role' = 'list'
      GROUP BY office
    ) n
    WHERE n.office = d.office`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('directory_offices', (t) => t.dropColumn('logo_url'));
}
