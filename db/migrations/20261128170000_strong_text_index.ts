import type { Knex } from 'knex';

/**
 * The strong text of each shown listing (its headline, public address and agents' names, without
 * the description) as a full-text index of its own, for the strong pool of a relevance search's
 * candidates (db/listing-search/relevance.ts, docs/reads.md): a word that is in many descriptions
 * but in few headlines finds its few strong matches here instead of reading every match. The
 * expression is STRONG_TEXT_SQL written out, as a migration must not change when that file does.
 *
 * PostgreSQL keeps no statistics of a partial index's expression for the planner, which then
 * guessed 1% of the listings for every word: it read a word in every headline (890,839 listings
 * at a million) through this index and sorted them, 5.4 s, instead of walking the newest-first
 * index for 500 of them, 29 ms. Statistics on the expression itself (ANALYZE keeps its most
 * common words, as for search_tsv) give it the real share.
 */
const STRONG_TEXT = `ts_filter(search_tsv, '{a,b}')`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX listings_shown_strong_text_idx ON listings USING gin (${STRONG_TEXT}) WHERE is_shown`);
  await knex.raw(`CREATE STATISTICS listings_strong_text_stats ON (${STRONG_TEXT}) FROM listings`);
  await knex.raw('ANALYZE listings');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP STATISTICS listings_strong_text_stats');
  await knex.raw('DROP INDEX listings_shown_strong_text_idx');
}
