import { sortNames } from '../../db/sort-order.js';
/** Paging query parameters, one definition for every list (docs/reads.md). */

export const limitParam = (max: number, dflt: number) => ({ type: 'integer', minimum: 1, maximum: max, default: dflt }) as const;
/** Deep offsets make the database skip that many rows: past 10,000, narrow the filters instead. */
export const MAX_OFFSET = 10_000;
export const offsetParam = { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 } as const;
/** Admin lists: 1..200, default 50. */
export const adminLimitParam = limitParam(200, 50);

/**
 * The schema of an offset-paged answer: `{ total, <name>: [items], nextOffset }`, nextOffset being
 * where the next page starts (pass it as offset), null on the last.
 */
export function offsetPageSchema<Id extends string, Name extends string, Items extends object>(id: Id, name: Name, items: Items, totalDescription: string) {
  return {
    $id: id,
    type: 'object',
    required: ['total', name, 'nextOffset'],
    properties: {
      total: { type: 'integer', description: totalDescription },
      [name]: { type: 'array', items },
      nextOffset: { type: ['integer', 'null'], description: 'Where the next page starts (pass it as offset); null on the last.' },
    },
  } as const;
}

/** A list's sort parameter: one of its names ascending, or with a leading - descending; ties by id. */
export const sortParam = (columns: Record<string, string>, fallback: string, names: string) => ({
  enum: sortNames(columns),
  default: fallback,
  description: `${names} A leading - sorts descending; rows without a value come last; ties are broken by id, so pages never repeat or skip. Default ${fallback}.`,
});
