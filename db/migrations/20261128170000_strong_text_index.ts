import type { Knex } from 'knex';

/**
 * The strong text of each shown listing (its headline, public address and agents' names, without
 * the description) as a full-text index of its own, for the strong pool of a relevance search's
 * candidates (db/listing-search/relevance.ts, docs/reads.md): a word that is in many descriptions
 * but in few headlines finds its few strong matches here instead of reading every match. The
 * expression is STRONG_TEXT_SQL written out, as a migration must not change when that file does.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX listings_shown_strong_text_idx ON listings USING gin (ts_filter(search_tsv, '{a,b}')) WHERE is_shown`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX listings_shown_strong_text_idx');
}
