/** Paging query parameters, one definition for every list (docs/reads.md). */

export const limitParam = (max: number, dflt: number) => ({ type: 'integer', minimum: 1, maximum: max, default: dflt }) as const;
/** Deep offsets make the database skip that many rows: past 10,000, narrow the filters instead. */
export const MAX_OFFSET = 10_000;
export const offsetParam = { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 } as const;
/** Admin lists: 1..200, default 50. */
export const adminLimitParam = limitParam(200, 50);
