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
