import type { Knex } from 'knex';
import { LITERAL, PREPARE } from './prepared-statements.js';

/**
 * The most bytes of records one public answer carries by default (PUBLIC_PAGE_MAX_BYTES). A page of
 * ordinary listings is a few hundred kilobytes; this bounds what one request can make the service
 * (and its database connection) hold, whatever a feed stored.
 */
export const PUBLIC_PAGE_MAX_BYTES = 4 * 1024 * 1024;

/** A page of records as JSON texts, and whether more follow it. */
export interface CappedPage {
  json: string[];
  /** True when records follow the last one returned (cut by `limit` or by the byte budget). */
  more: boolean;
  /** The `carry` columns of the last record returned, as text (what a cursor after it needs); null for an empty page. */
  last: Record<string, string> | null;
}

/**
 * Runs a page query and keeps the longest run of its records, in its own order, whose JSON texts
 * add up to at most `maxBytes` (the first record always, so a page is never empty while records
 * remain); the records past the cut never leave the database. `page` must select the record's JSON
 * text as `json` plus the columns `order` names, and carry its own ORDER BY and OFFSET; it is run
 * with one row more than `limit` to learn whether more follow. The `carry` columns of the page
 * come back for its last record. With `prepare` it runs as a prepared statement where the pool
 * keeps them (PREPARE): only for a page whose plan is the same for every value it binds, with its
 * LIMIT and OFFSET written in the SQL (as this function writes the outer LIMIT).
 */
export async function cappedPage(
  db: Knex,
  page: Knex.QueryBuilder,
  order: string,
  limit: number,
  maxBytes: number,
  carry: string[] = [],
  prepare = false,
): Promise<CappedPage> {
  const carried = carry.map((c) => `, ${c}::text AS ${c}`).join('');
  const { rows } = await db
    .raw(
      `SELECT json, fetched${carry.map((c) => `, ${c}`).join('')}
       FROM (SELECT json${carried}, row_number() OVER w AS n, sum(octet_length(json)) OVER w AS upto, count(*) OVER () AS fetched
               FROM (?) page WINDOW w AS (ORDER BY ${order} ROWS UNBOUNDED PRECEDING)) ranked
      WHERE n = 1 OR (n <= ? AND upto <= ?)
      ORDER BY n`,
      [page.clone().limit(limit + 1, LITERAL), limit, maxBytes],
    )
    .options(prepare ? PREPARE : {});
  const json = (rows as { json: string }[]).map((r) => r.json);
  const fetched = rows.length ? Number(rows[0].fetched) : 0;
  const lastRow = rows[rows.length - 1] as Record<string, string> | undefined;
  const last = lastRow && carry.length ? Object.fromEntries(carry.map((c) => [c, lastRow[c]])) : null;
  return { json, more: fetched > json.length, last };
}
