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
 * Offices up to which a refresh is one call (run_after_locks) that merges both tables: a small
 * feed's, whose offices nearly always have rows already. BEGIN, the locks, a look for rows, the
 * two statements and COMMIT on two connections took 3 to 4 ms of a 1-listing push; the one call
 * about half that. A first load's many offices are looked at, and inserted plainly when they have none.
 */
const MERGE_UP_TO = 10;

/**
 * Brings the directory rows of the given offices up to date with their public listings: one office
 * row (listing count, countries, localities, the centre of its located listings in its most common
 * locality, the name and phone its
 * listings' source gives) and one
 * row per distinct agent (by email, or by name without one) with contact and listing count.
 * Called after every feed for the offices it changed (once the feed's answer has gone: until then
 * they are marked stale), and after visibility changes.
 */
export async function refreshDirectory(db: Knex, offices: Iterable<string>): Promise<void> {
  const list = [...new Set(offices)];
  if (list.length === 0) return;
  // The offices' stale marks go as their refresh lands. A mark is written after its feed's listings
  // are committed, so a refresh reading the listings after a mark was removed covers that feed.
  // A few offices (a small feed's): the marks and both tables in one call to the database, after
  // both tables' locks, each statement with a fresh snapshot. Inside a caller's transaction, in it,
  // one table after the other. Otherwise the office rows and the agent rows are refreshed at once,
  // each in a transaction of its own (and many offices, a large multi-office feed's, in two halves
  // each), so the database's cores share the work; then the marks written before it began go.
  if (list.length <= MERGE_UP_TO) {
    const tables = [OFFICE_ROWS, AGENT_ROWS];
    await db.raw('SELECT run_after_locks(?::text[], ?::text[], ?::text[])', [
      tables.flatMap((t) => list.map((office) => `${t.table}:${office}`)),
      [UNMARK_SQL, ...tables.map((t) => mergeSql(t, '$1'))],
      list,
    ]);
    return;
  }
  if (db.isTransaction) {
    await db.raw(UNMARK_BOUND_SQL, [list]);
    await syncRows(db, OFFICE_ROWS, list);
    await syncRows(db, AGENT_ROWS, list);
    return;
  }
  // As text: a JavaScript Date would cut it to the millisecond, and marks written in that
  // millisecond before the refresh began would then be left behind.
  const { rows } = await db.raw('SELECT clock_timestamp()::text AS began');
  const parts = list.length < PARALLEL_FROM ? [list] : [list.slice(0, Math.ceil(list.length / 2)), list.slice(Math.ceil(list.length / 2))];
  await Promise.all(
    parts.flatMap((part) => [db.transaction((trx) => syncRows(trx, OFFICE_ROWS, part)), db.transaction((trx) => syncRows(trx, AGENT_ROWS, part))]),
  );
  await db.raw(`${UNMARK_BOUND_SQL} AND since < ?::timestamptz`, [list, rows[0].began]);
}

/** Removes the offices' stale marks (directory_stale). */
const UNMARK_SQL = 'DELETE FROM directory_stale WHERE office = ANY($1)';
/** The same with its offices as a knex binding. */
const UNMARK_BOUND_SQL = UNMARK_SQL.replace('$1', '?::text[]');

/**
 * Marks the offices' directory rows stale: an INSERT for a CTE of the statement that finishes a
 * feed, so the mark is written with the feed's end (db/feed-events.ts finishFeedEvent), and its
 * directory refresh can follow the answer (workers/ingest/process-feed.ts).
 */
export function markDirectoryStale(db: Knex, offices: readonly string[]): Knex.Raw {
  return db.raw('INSERT INTO directory_stale (office) SELECT unnest(?::text[])', [[...offices]]);
}

/**
 * Offices marked stale more than `olderThanMs` ago: a refresh that did not happen (a process that
 * stopped between a feed's end and its refresh, or a refresh that failed). At most `limit`.
 */
export async function staleDirectoryOffices(db: Knex, olderThanMs: number, limit: number): Promise<string[]> {
  const { rows } = await db.raw(
    `SELECT office FROM directory_stale WHERE since < clock_timestamp() - make_interval(secs => ?) GROUP BY office ORDER BY min(since) LIMIT ?`,
    [olderThanMs / 1000, limit],
  );
  return rows.map((r: { office: string }) => r.office);
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
 * What a directory table's rows should be for a list of offices: `fresh(offices)` is a CTE named
 * fresh of those rows, where `offices` is the SQL of the office list (a binding or $1).
 */
interface DirectoryRows {
  table: DirectoryTable;
  key: string[];
  columns: string[];
  fresh(offices: string): string;
}

/**
 * The statement that brings the offices' rows of a table to fresh: rows no longer in fresh are
 * deleted, new ones inserted and the others updated only where they differ, so a feed that
 * changes little of an office's directory rewrites little of it (and of its trigram index). A row
 * written is stamped by change_stamp() (updated_at: RESO ModificationTimestamp of Member and Office).
 */
function mergeSql(rows: DirectoryRows, offices: string): string {
  const { table, key, columns } = rows;
  const values = columns.filter((c) => !key.includes(c));
  return `WITH ${rows.fresh(offices)},
     gone AS (
       DELETE FROM ${table} d WHERE d.office = ANY(${offices})
         AND NOT EXISTS (SELECT 1 FROM fresh f WHERE ${key.map((k) => `f.${k} = d.${k}`).join(' AND ')})
     )
     ${insertSql(rows)}
     ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${values.map((c) => `${c} = excluded.${c}`).join(', ')}, updated_at = change_stamp()
       WHERE (${values.map((c) => `d.${c}`).join(', ')}) IS DISTINCT FROM (${values.map((c) => `excluded.${c}`).join(', ')})`;
}

const insertSql = ({ table, columns }: DirectoryRows) => `INSERT INTO ${table} AS d (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM fresh`;

/**
 * Brings the given offices' rows of a directory table to fresh, in the caller's transaction.
 * Refreshes of the same office take turns (a transaction-scoped advisory lock per table and
 * office, taken in office order). Offices with no rows yet (a first load) have theirs inserted
 * plainly; otherwise the rows are merged (mergeSql).
 */
async function syncRows(trx: Knex, rows: DirectoryRows, list: string[]): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtext(? || o)) FROM (SELECT o FROM unnest(?::text[]) o ORDER BY o) offices', [`${rows.table}:`, list]);
  const held = await trx(rows.table).whereRaw('office = ANY(?::text[])', [list]).first(trx.raw('1'));
  if (held) await trx.raw(mergeSql(rows, '?::text[]'), [list, list]);
  else await trx.raw(`WITH ${rows.fresh('?::text[]')} ${insertSql(rows)}`, [list]);
}

/**
 * The offices' rows of directory_offices, brought up to date. What is read of each listing is
 * taken from its record once, into a materialized CTE, so the records are not carried through the
 * sort that groups them (it spilled to disk: half the statement's time for 50,000 listings).
 */
const OFFICE_ROWS: DirectoryRows = {
  table: 'directory_offices',
  key: ['office'],
  columns: ['office', 'listing_count', 'countries', 'country_counts', 'localities', 'lat', 'lng', 'name', 'phone', 'logo_url', 'search_text'],
  fresh: (offices) => `l AS MATERIALIZED (
       SELECT office, country, data->'address'->>'locality' AS locality,
              -- the location the public may see (a withheld street's is its locality's)
              CASE WHEN public_patch->'location' IS NOT NULL THEN public_patch->'location' ELSE data->'location' END AS location,
              -- the office as its listings' source names it (RESO ListOfficeName, ListOfficePhone, Office Logo media)
              (SELECT o FROM jsonb_array_elements(data->'listingOffices') o WHERE o->>'role' = 'list' LIMIT 1) AS named, mod_time, listing_key
       FROM listings WHERE is_public AND office = ANY(${offices})
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
     )`,
};

/**
 * The offices' rows of directory_agents, brought up to date. An agent's name, email and phones
 * are those of its latest listing by modTime that has them; between listings of the same modTime,
 * the one with the greater listing key (so the rows do not depend on the plan the database picks).
 */
const AGENT_ROWS: DirectoryRows = {
  table: 'directory_agents',
  key: ['office', 'agent_key'],
  columns: ['office', 'agent_key', 'name', 'email', 'phones', 'listing_count', 'countries', 'localities', 'search_text'],
  fresh: (offices) => `fresh AS MATERIALIZED (
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
         WHERE l.is_public AND l.office = ANY(${offices}) AND (nullif(a->>'email', '') IS NOT NULL OR nullif(a->>'name', '') IS NOT NULL)
         GROUP BY 1, 2
       ) agents
     )`,
};

/** Every office that has listings (for a full rebuild, e.g. after a bulk load). */
export async function allOffices(db: Knex): Promise<string[]> {
  return db('listings').distinct('office').pluck('office');
}
