import type { Knex } from 'knex';

/**
 * The map index also carries each listing's modTime as a key (btree_gist gives timestamps a GiST
 * operator class and a distance, `<->`), so a map area's newest listings come from the index in
 * that order, nearest the present first, whatever the area holds (db/listing-search/newest-in-area.ts):
 * a page of 25 reads about 50 index pages for a street or a state alike, where the index on the
 * location alone gave every match in the area to be sorted (1,422 at a million listings for four
 * suburbs, 980,000 for a state: a second). It replaces the map index rather than adding one, so
 * an ingest writes no more indexes than before.
 *
 * map_newest_bound(area, k): the modTime of the k-th newest public listing in a box (the oldest of
 * the box's k newest; of all of them when it holds fewer, NULL when none), read from that index in
 * time order. It is a function so that it can forbid a sort: PostgreSQL estimates every box as
 * holding a few listings (points keep no statistics), and for a few it would rather read the box's
 * matches and sort them, which is what this read exists to avoid (it did so in tests' small tables,
 * and in the plan it keeps for a statement's every value). In PL/pgSQL, which keeps the statement's
 * plan for the session: a SQL function's statement was planned at every call (0.4-0.5 ms a call
 * against 0.19 ms, pgbench, one client, 100,000 listings).
 *
 * btree_gist lives in public, as pg_trgm does, so schemas sharing a database share it. Creating an
 * extension is not safe against another session creating it at the same moment (two schemas
 * migrating at once on a new database), so that is done under a transaction-wide advisory lock.
 * btree_gist is a trusted extension (PostgreSQL 13 and later): a database owner may create it, and
 * managed PostgreSQL services offer it.
 */
const MAP_INDEX = 'ON listings USING gist (geo, mod_time) INCLUDE (is_public, status, listing_key) WHERE is_shown';
const BEFORE = 'ON listings USING gist (geo) INCLUDE (is_public, status, mod_time, listing_key) WHERE is_shown';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`SELECT pg_advisory_xact_lock(hashtext('listing-service: create extension btree_gist'))`);
  await knex.raw('CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public');
  await knex.raw('DROP INDEX listings_shown_geo_idx');
  await knex.raw(`CREATE INDEX listings_shown_geo_idx ${MAP_INDEX}`);
  await knex.raw(`
    CREATE FUNCTION map_newest_bound(p_area box, p_k integer)
    RETURNS timestamptz
    LANGUAGE plpgsql STABLE
    SET enable_sort = off
    AS $fn$
    BEGIN
      RETURN (SELECT min(mod_time) FROM (
        SELECT mod_time FROM listings
         WHERE is_shown AND is_public AND geo <@ p_area
         ORDER BY mod_time OPERATOR(public.<->) '10000-01-02 00:00:00+00'::timestamptz
         LIMIT p_k
      ) AS newest);
    END
    $fn$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION map_newest_bound(box, integer)');
  await knex.raw('DROP INDEX listings_shown_geo_idx');
  await knex.raw(`CREATE INDEX listings_shown_geo_idx ${BEFORE}`);
}
