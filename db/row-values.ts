import type { Knex } from 'knex';

/** Conversions shared by the data-access modules when they turn rows into API objects. */

/** A timestamp column as ISO-8601 UTC. */
export const iso = (value: Date | string): string => new Date(value).toISOString();

/** A nullable timestamp column as ISO-8601 UTC, or null. */
export const isoOrNull = (value: Date | string | null | undefined): string | null => (value ? iso(value) : null);

/** A case-insensitive `LIKE … ESCAPE '\'` pattern matching `text` anywhere (wildcards in it escaped). */
export const likePattern = (text: string): string => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Where the page after one of `shown` rows from `offset` starts, out of `total`; null when it was the last. */
export const nextOffsetOf = (offset: number, shown: number, total: number): number | null => (offset + shown < total ? offset + shown : null);

/**
 * One page of an admin list and how many rows match in all. `base` builds the filtered query; it is
 * called twice, for the page and for the count, which run together. `page` adds the columns and the
 * order to the page's query; the limit and offset come from `at`.
 */
export async function offsetPage<Row>(
  base: () => Knex.QueryBuilder,
  page: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
  at: { limit: number; offset: number },
): Promise<{ rows: Row[]; total: number; nextOffset: number | null }> {
  const [rows, [{ n }]] = await Promise.all([page(base()).limit(at.limit).offset(at.offset), base().count({ n: '*' })]);
  const total = Number(n);
  return { rows, total, nextOffset: nextOffsetOf(at.offset, rows.length, total) };
}

/** A column's name as the API spells it: `key_id` → `keyId`. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/**
 * The named columns of a row under their API names (`unique_id` → `uniqueId`), values as they are:
 * a mapper spells only the columns it converts or renames.
 */
export function camelColumns<R, K extends keyof R & string>(row: R, columns: readonly K[]): { [C in K as CamelCase<C>]: R[C] } {
  const out: Record<string, unknown> = {};
  for (const column of columns) out[column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = row[column];
  return out as { [C in K as CamelCase<C>]: R[C] };
}
