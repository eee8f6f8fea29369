/**
 * An object schema whose properties are required unless `extra.required` names fewer. The property
 * names are written once: by default the required list is the properties' own names, in their order.
 */
export function requiredObject<const P extends Record<string, unknown>, const E extends Record<string, unknown> = Record<never, never>>(
  properties: P,
  extra?: E,
) {
  return { type: 'object', required: Object.keys(properties), ...extra, properties } as const;
}

/** A named object schema (its `$id` is how routes and other schemas refer to it): see requiredObject. */
export function objectSchema<const P extends Record<string, unknown>, const E extends Record<string, unknown> = Record<never, never>>(
  id: string,
  properties: P,
  extra?: E,
) {
  return { $id: id, ...requiredObject(properties, extra) } as const;
}
