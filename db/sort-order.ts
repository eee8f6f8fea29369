/**
 * The ORDER BY of an admin list: `sort` is one of the list's names, ascending, or with a leading
 * - descending (the schema admits only these names, so no caller's text reaches the SQL). Each
 * name maps to a column expression; rows without a value come last either way, and the tie-break
 * column keeps pages from repeating or skipping rows.
 */
export function orderBySql(sort: string, columns: Record<string, string>, tieBreak: string): string {
  const descending = sort.startsWith('-');
  const column = columns[descending ? sort.slice(1) : sort];
  if (!column) throw new Error(`unknown sort ${sort}`);
  const direction = descending ? 'desc' : 'asc';
  return `${column} ${direction} nulls last, ${tieBreak} ${direction}`;
}

/** The values a list's `sort` parameter admits: each name and its reverse. */
export const sortNames = (columns: Record<string, string>): string[] => Object.keys(columns).flatMap((name) => [name, `-${name}`]);

/** Sortable columns of each admin list (the API names them; docs/operators.md lists them). */
export const KEY_SORTS = { client: 'lower(k.client_name)', status: 'k.status', created: 'k.created_at', lastFeed: 'f.created_at', lastUsed: 'k.last_used_at' };
export const FEED_SORTS = { received: 'created_at', outcome: 'outcome', attempts: 'attempts', invalid: "(result->'counts'->>'invalid')::int" };
export const LISTING_SORTS = { updated: 'updated_at', key: 'listing_key', status: 'status' };
export const LEAD_SORTS = { received: 'created_at', status: 'status', attempts: 'attempts' };
export const QUARANTINE_SORTS = { tripped: 'created_at', office: 'office', archive: 'archive_count' };
export const AUDIT_SORTS = { at: 'id', actor: 'actor', action: 'action' };
