import type { Knex } from 'knex';

/**
 * An agent's key within its office, from a listing's agent element `a`: the lower-case email, else
 * `name:` and the lower-case name. The directory groups by it, agent= matches on it, and an agent's
 * id is the first 16 hex digits of md5(office || '/' || key) (pipeline/display-fields.ts agentId).
 */
export const AGENT_KEY_SQL = `coalesce(lower(nullif(a->>'email', '')), 'name:' || lower(a->>'name'))`;

/** Offices from which a directory refresh is split in two. */
const PARALLEL_FROM = 100;

/**
 * Brings the directory rows of the given offices up to date with their public listings: one office
 * row (listing count, countries, localities, the centre of its located listings in its most common
 * locality, the name and phone its
 * listings' source gives) and one
 * row per distinct agent (by email, or by name without one) with contact and listing count.
 * Called after every feed for the offices it changed, and after visibility changes.
 */
export async function refreshDirectory(db: Knex, offices: Iterable<string>): Promise<void> {
  const list = [...new Set(offices)];
  if (list.length === 0) return;
  // Inside a caller's transaction, in it, one table after the other. Otherwise the office rows and
  // the agent rows are refreshed at once, each in a transaction of its own (and many offices, a large
  // multi-office feed's, in two halves each), so the database's cores share the work.
  if (db.isTransaction) {
    await refreshOfficeRows(db, list);
    await refreshAgentRows(db, list);
    return;
  }
  const parts = list.length < PARALLEL_FROM ? [list] : [list.slice(0, Math.ceil(list.length / 2)), list.slice(Math.ceil(list.length / 2))];
  await Promise.all(parts.flatMap((part) => [db.transaction((trx) => refreshOfficeRows(trx, part)), db.transaction((trx) => refreshAgentRows(trx, part))]));
}

type DirectoryTable = 'directory_offices' | 'directory_agents';

/**
 * In a query grouped by office over listings (mod_time, listing_key), `json->>field` of the latest
 * listing that has it (the greater key between equals): how the directory picks an office's name,
 * phone and logo.
 */
export const latestOfficeField = (json: string, field: string) =>
  `(array_agg(${json}->>'${field}' ORDER BY mod_time DESC, listing_key DESC) FILTER (WHERE ${json}->>'${field}' IS NOT NULL))[1]`;

/**
 * Brings the given offices' rows of a directory table to `fresh` (a CTE named fresh, of the rows
 * they should have, bound to the office list once). Refreshes of the same office take turns (a
 * transaction-scoped advisory lock per table and office, taken in office order). Offices with no
 * rows yet (a first load) have theirs inserted. Otherwise, in one statement, rows no longer in
 * fresh are deleted, new ones inserted and the others updated only where they differ, so a feed
 * that changes little of an office's directory rewrites little of it (and of its trigram index).
 */
async function syncRows(trx: Knex, table: DirectoryTable, key: string[], columns: string[], fresh: string, list: string[]): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtext(? || o)) FROM (SELECT o FROM unnest(?::text[]) o ORDER BY o) offices', [`${table}:`, list]);
  const held = await trx(table).whereRaw('office = ANY(?::text[])', [list]).first(trx.raw('1'));
  const insert = `INSERT INTO ${table} AS d (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM fresh`;
  if (!held) {
    await trx.raw(`WITH ${fresh} ${insert}`, [list]);
    return;
  }
  const values = columns.filter((c) => !key.includes(c));
  const touch = table === 'directory_offices' ? ', updated_at = now()' : '';
  await trx.raw(
    `WITH ${fresh},
     gone AS (
       DELETE FROM ${table} d WHERE d.office = ANY(?::text[])
         AND NOT EXISTS (SELECT 1 FROM fresh f WHERE ${key.map((k) => `f.${k} = d.${k}`).join(' AND ')})
     )
     ${insert}
     ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${values.map((c) => `${c} = excluded.${c}`).join(', ')}${touch}
       WHERE (${values.map((c) => `d.${c}`).join(', ')}) IS DISTINCT FROM (${values.map((c) => `excluded.${c}`).join(', ')})`,
    [list, list],
  );
}

/**
 * The offices' rows of directory_offices, brought up to date. What is read of each listing is
 * taken from its record once, into a materialized CTE, so the records are not carried through the
 * sort that groups them (it spilled to disk: half the statement's time for 50,000 listings).
 */
async function refreshOfficeRows(trx: Knex, list: string[]): Promise<void> {
  const fresh = `l AS MATERIALIZED (
       SELECT office, country, data->'address'->>'locality' AS locality,
              -- the location the public may see (a withheld street's is its locality's)
              CASE WHEN public_patch->'location' IS NOT NULL THEN public_patch->'location' ELSE data->'location' END AS location,
              -- the office as its listings' source names it (RESO ListOfficeName, ListOfficePhone, Office Logo media)
              (SELECT o FROM jsonb_array_elements(data->'listingOffices') o WHERE o->>'role' = 'list' LIMIT 1) AS named, mod_time, listing_key
       FROM listings WHERE is_public AND office = ANY(?::text[])
     ),
     per_country AS (
       SELECT office, jsonb_object_agg(country, n) AS counts
       FROM (SELECT office, country, count(*)::int AS n FROM l WHERE country IS NOT NULL GROUP BY office, country) c
       GROUP BY office
     ),
     -- where the office works: the centre of its located listings in its most common locality
     -- (the mean of all of them puts an office working Perth and Sydney in rural New South Wales)
     place AS (
       SELECT DISTINCT ON (office) office, lat, lng
       FROM (SELECT office, locality, count(*) AS n, avg((location->>'lat')::float8) AS lat, avg((location->>'lng')::float8) AS lng
             FROM l WHERE location->>'lat' IS NOT NULL GROUP BY office, locality) per_locality
       ORDER BY office, n DESC, locality NULLS LAST
     ),
     fresh AS MATERIALIZED (
       SELECT o.office, o.n AS listing_count, o.countries, coalesce(per_country.counts, '{}'::jsonb) AS country_counts,
              o.localities, place.lat, place.lng, o.name, o.phone, o.logo_url,
              lower(o.office || ' ' || coalesce(o.name || ' ', '') || array_to_string(o.localities, ' ')) AS search_text
       FROM (
         SELECT office, count(*)::int AS n,
                -- name, phone and logo from the latest listing that has them (the greater key between equals)
                ${latestOfficeField('named', 'name')} AS name,
                ${latestOfficeField('named', 'phone')} AS phone,
                ${latestOfficeField('named', 'logoUrl')} AS logo_url,
                coalesce(array_agg(DISTINCT country ORDER BY country) FILTER (WHERE country IS NOT NULL), '{}') AS countries,
                coalesce(array_agg(DISTINCT locality ORDER BY locality) FILTER (WHERE locality IS NOT NULL), '{}') AS localities
         FROM l GROUP BY office
       ) o
       LEFT JOIN per_country USING (office)
       LEFT JOIN place USING (office)
     )`;
  const columns = ['office', 'listing_count', 'countries', 'country_counts', 'localities', 'lat', 'lng', 'name', 'phone', 'logo_url', 'search_text'];
  await syncRows(trx, 'directory_offices', ['office'], columns, fresh, list);
}

/**
 * The offices' rows of directory_agents, brought up to date. An agent's name, email and phones
 * are those of its latest listing by modTime that has them; between listings of the same modTime,
 * the one with the greater listing key (so the rows do not depend on the plan the database picks).
 */
async function refreshAgentRows(trx: Knex, list: string[]): Promise<void> {
  const fresh = `fresh AS MATERIALIZED (
       SELECT office, agent_key, name, email, phones, n AS listing_count, countries, localities,
              lower(coalesce(name, '') || ' ' || coalesce(email, '') || ' ' || array_to_string(localities, ' ')) AS search_text
       FROM (
         SELECT l.office,
                ${AGENT_KEY_SQL} AS agent_key,
                (array_agg(a->>'name' ORDER BY l.mod_time DESC, l.listing_key DESC) FILTER (WHERE a->>'name' IS NOT NULL))[1] AS name,
                (array_agg(a->>'email' ORDER BY l.mod_time DESC, l.listing_key DESC) FILTER (WHERE nullif(a->>'email', '') IS NOT NULL))[1] AS email,
                (array_agg(coalesce(a->'phones', '[]'::jsonb) ORDER BY l.mod_time DESC, l.listing_key DESC))[1] AS phones,
                count(DISTINCT l.listing_key)::int AS n,
                coalesce(array_agg(DISTINCT l.country ORDER BY l.country) FILTER (WHERE l.country IS NOT NULL), '{}') AS countries,
                coalesce(array_agg(DISTINCT l.data->'address'->>'locality' ORDER BY l.data->'address'->>'locality') FILTER (WHERE l.data->'address'->>'locality' IS NOT NULL), '{}') AS localities
         FROM listings l CROSS JOIN LATERAL jsonb_array_elements(coalesce(l.data->'agents', '[]'::jsonb)) a
         WHERE l.is_public AND l.office = ANY(?::text[]) AND (nullif(a->>'email', '') IS NOT NULL OR nullif(a->>'name', '') IS NOT NULL)
         GROUP BY 1, 2
       ) agents
     )`;
  const columns = ['office', 'agent_key', 'name', 'email', 'phones', 'listing_count', 'countries', 'localities', 'search_text'];
  await syncRows(trx, 'directory_agents', ['office', 'agent_key'], columns, fresh, list);
}

/** Every office that has listings (for a full rebuild, e.g. after a bulk load). */
export async function allOffices(db: Knex): Promise<string[]> {
  return db('listings').distinct('office').pluck('office');
}
