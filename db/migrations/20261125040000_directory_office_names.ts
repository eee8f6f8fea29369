import type { Knex } from 'knex';
import { latestOfficeField } from '../directory.js';

/**
 * An office's name and phone in the directory, as its listings' source names it (RESO
 * ListOfficeName and ListOfficePhone, kept in listingOffices): from the latest public listing
 * that has them. Filled here for the offices already listed; kept current by each refresh.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('directory_offices', (t) => {
    t.text('name');
    t.text('phone');
  });
  await knex.raw(`
    UPDATE directory_offices d SET name = n.name, phone = n.phone,
           search_text = lower(d.office || ' ' || coalesce(n.name || ' ', '') || array_to_string(d.localities, ' '))
    FROM (
      SELECT office,
             ${latestOfficeField('o', 'name')} AS name,
             ${latestOfficeField('o', 'phone')} AS phone
      FROM listings, jsonb_array_elements(data->'listingOffices') o
      WHERE is_public AND o->>'role' = 'list'
      GROUP BY office
    ) n
    WHERE n.office = d.office`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("UPDATE directory_offices SET search_text = lower(office || ' ' || array_to_string(localities, ' '))");
  await knex.schema.alterTable('directory_offices', (t) => {
    t.dropColumn('name');
    t.dropColumn('phone');
  });
}
