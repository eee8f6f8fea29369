import type { Knex } from 'knex';

/**
 * directory_stale: offices whose directory rows a feed has made stale, written by the statement
 * that finishes the feed, so a feed's answer no longer waits for its directory refresh (which reads
 * every public listing of the office). A row per feed and office (no key: writing one never waits
 * on another), removed by the refresh that covers it; one a refresh never covered (a process that
 * stopped in between) is found by the maintenance sweep. db/directory.ts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE directory_stale (
      office text NOT NULL,
      since timestamptz NOT NULL DEFAULT clock_timestamp()
    )`);
  await knex.raw('CREATE INDEX directory_stale_office_idx ON directory_stale (office)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE directory_stale');
}
