import type { Knex } from 'knex';

/** Offices from which a directory refresh is split in two. */
const PARALLEL_FROM = 100;

/**
 * Rebuilds the directory rows of the given offices from their public listings (DESIGN.md §6):
 * one office row (listing count, countries, localities, centroid of located listings) and one
 * row per distinct agent (by email, or by name without one) with contact and listing count.
 * Called after every feed for the offices it changed, and after visibility changes.
 */
export async function refreshDirectory(db: Knex, offices: Iterable<string>): Promise<void> {
  const list = [...new Set(offices)];
  if (list.length === 0) return;
  // Inside a caller's transaction, in it, one table after the other. Otherwise the office rows and
  // the agent rows are rebuilt at once, each in a transaction of its own (and many offices, a large
  // multi-office feed's, in two halves each), so the database's cores share the work.
  if (db.isTransaction) {
    await rebuildOfficeRows(db, list);
    await rebuildAgentRows(db, list);
    return;
  }
  const parts = list.length < PARALLEL_FROM ? [list] : [list.slice(0, Math.ceil(list.length / 2)), list.slice(Math.ceil(list.length / 2))];
  await Promise.all(parts.flatMap((part) => [db.transaction((trx) => rebuildOfficeRows(trx, part)), db.transaction((trx) => rebuildAgentRows(trx, part))]));
}

/**
 * The offices' rows of directory_offices, rebuilt. What is read of each listing is taken from its
 * record once, into a materialized CTE, so the records are not carried through the sort that
 * groups them (it spilled to disk: half the statement's time for 50,000 listings).
 */
async function rebuildOfficeRows(trx: Knex, list: string[]): Promise<void> {
  await trx('directory_offices').whereRaw('office = ANY(?::text[])', [list]).del();
  await trx.raw(
    `WITH l AS MATERIALIZED (
       SELECT office, country, data->'address'->>'locality' AS locality, data->'location' AS location
       FROM listings WHERE is_public AND office = ANY(?::text[])
     ),
     per_country AS (
       SELECT office, jsonb_object_agg(country, n) AS counts
       FROM (SELECT office, country, count(*)::int AS n FROM l WHERE country IS NOT NULL GROUP BY office, country) c
       GROUP BY office
     )
     INSERT INTO directory_offices (office, listing_count, countries, country_counts, localities, lat, lng, search_text)
       SELECT o.office, o.n, o.countries, coalesce(per_country.counts, '{}'::jsonb), o.localities, o.lat, o.lng,
              lower(o.office || ' ' || array_to_string(o.localities, ' '))
       FROM (
         SELECT office, count(*)::int AS n,
                coalesce(array_agg(DISTINCT country ORDER BY country) FILTER (WHERE country IS NOT NULL), '{}') AS countries,
                coalesce(array_agg(DISTINCT locality ORDER BY locality) FILTER (WHERE locality IS NOT NULL), '{}') AS localities,
                avg((location->>'lat')::float8) AS lat, avg((location->>'lng')::float8) AS lng
         FROM l GROUP BY office
       ) o
       LEFT JOIN per_country USING (office)`,
    [list],
  );
}

/**
 * The offices' rows of directory_agents, rebuilt. An agent's name, email and phones are those of
 * its latest listing by modTime that has them; between listings of the same modTime, the one with
 * the greater listing key (so the rows do not depend on the plan the database picks).
 */
async function rebuildAgentRows(trx: Knex, list: string[]): Promise<void> {
  await trx('directory_agents').whereRaw('office = ANY(?::text[])', [list]).del();
  await trx.raw(
    `INSERT INTO directory_agents (office, agent_key, name, email, phones, listing_count, countries, localities, search_text)
       SELECT office, agent_key, name, email, phones, n, countries, localities,
              lower(coalesce(name, '') || ' ' || coalesce(email, '') || ' ' || array_to_string(localities, ' '))
       FROM (
         SELECT l.office,
                coalesce(lower(nullif(a->>'email', '')), 'name:' || lower(a->>'name')) AS agent_key,
                (array_agg(a->>'name' ORDER BY l.mod_time DESC, l.listing_key DESC) FILTER (WHERE a->>'name' IS NOT NULL))[1] AS name,
                (array_agg(a->>'email' ORDER BY l.mod_time DESC, l.listing_key DESC) FILTER (WHERE nullif(a->>'email', '') IS NOT NULL))[1] AS email,
                (array_agg(coalesce(a->'phones', '[]'::jsonb) ORDER BY l.mod_time DESC, l.listing_key DESC))[1] AS phones,
                count(DISTINCT l.listing_key)::int AS n,
                coalesce(array_agg(DISTINCT l.country ORDER BY l.country) FILTER (WHERE l.country IS NOT NULL), '{}') AS countries,
                coalesce(array_agg(DISTINCT l.data->'address'->>'locality' ORDER BY l.data->'address'->>'locality') FILTER (WHERE l.data->'address'->>'locality' IS NOT NULL), '{}') AS localities
         FROM listings l CROSS JOIN LATERAL jsonb_array_elements(coalesce(l.data->'agents', '[]'::jsonb)) a
         WHERE l.is_public AND l.office = ANY(?::text[]) AND (nullif(a->>'email', '') IS NOT NULL OR nullif(a->>'name', '') IS NOT NULL)
         GROUP BY 1, 2
       ) agents`,
    [list],
  );
}

/** Every office that has listings (for a full rebuild, e.g. after a bulk load). */
export async function allOffices(db: Knex): Promise<string[]> {
  return db('listings').distinct('office').pluck('office');
}
