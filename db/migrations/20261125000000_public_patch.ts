import type { Knex } from 'knex';
import { publicPatch } from '../../pipeline/public-view.js';
import type { CanonicalListing } from '../../pipeline/types.js';

/**
 * What public answers show differently from the stored record (the agent's display choices: a
 * withheld price, rent or sold price, a price shown as a range, a withheld street), as a patch of
 * the record's top-level fields; null when the public sees the record as it is. Written with the
 * record; here made for the listings already stored that withhold something.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('listings', (t) => {
    t.jsonb('public_patch');
  });
  let after = '';
  for (;;) {
    const rows: { listing_key: string; data: CanonicalListing }[] = await knex('listings')
      .select('listing_key', 'data')
      .where('listing_key', '>', after)
      .andWhere((q) =>
        q
          .whereRaw("data->'price'->>'display' = 'false'")
          .orWhereRaw("data->'rent'->>'display' = 'false'")
          .orWhereRaw("data->'sold'->'price'->>'display' = 'false'")
          .orWhereRaw("data->'address'->>'display' = 'false'"),
      )
      .orderBy('listing_key')
      .limit(500);
    if (rows.length === 0) break;
    for (const row of rows) {
      const patch = publicPatch(row.data);
      if (patch)
        await knex('listings')
          .where('listing_key', row.listing_key)
          .update({ public_patch: JSON.stringify(patch) });
    }
    after = rows[rows.length - 1].listing_key;
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('listings', (t) => {
    t.dropColumn('public_patch');
  });
}
