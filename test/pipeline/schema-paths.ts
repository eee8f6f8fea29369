/** Walking a JSON Schema's property paths and a record's values at them, for the tests that check every field is carried. */

import { RESO_FACT_FIELDS } from '../../pipeline/reso/reso-facts.js';

/** Extra fields REAXML has no element for: the RESO fixture carries them (test/pipeline/reso-exports.test.ts), the REAXML one cannot. */
export const RESO_ONLY: readonly string[] = ['internetDisplay', ...RESO_FACT_FIELDS];

export type Schema = { properties?: Record<string, Schema>; items?: Schema; oneOf?: Schema[] };

/** Every property path a schema names ("commercial.outgoings.tax", "business.categories.name"). */
export function paths(schema: Schema, prefix = ''): string[] {
  const inner = schema.oneOf?.find((s) => s.properties) ?? schema;
  const props = inner.properties ?? inner.items?.properties;
  if (!props) return [];
  return Object.entries(props).flatMap(([key, sub]) => [`${prefix}${key}`, ...paths(sub, `${prefix}${key}.`)]);
}

/** The values at a path, stepping into every element of an array. */
export function valuesAt(value: unknown, path: string[]): unknown[] {
  if (path.length === 0) return value === undefined || value === null ? [] : [value];
  if (Array.isArray(value)) return value.flatMap((v) => valuesAt(v, path));
  if (value === null || typeof value !== 'object') return [];
  return valuesAt((value as Record<string, unknown>)[path[0]], path.slice(1));
}
