/** Paging query parameters, one definition for every list (SPEC.md Limits). */

export const limitParam = (max: number, dflt: number) => ({ type: 'integer', minimum: 1, maximum: max, default: dflt }) as const;
export const offsetParam = { type: 'integer', minimum: 0, default: 0 } as const;
/** Admin lists: 1..200, default 50. */
export const adminLimitParam = limitParam(200, 50);
