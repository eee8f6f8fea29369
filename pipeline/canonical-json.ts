/**
 * JSON with every object's keys in sorted order (UTF-16 code units), whatever order the object
 * holds them in: the canonical serialisation content hashes are taken over. Its text is the same
 * as JSON.stringify of a key-sorted copy (undefined, function and symbol values left out of
 * objects and written as null in arrays, non-finite numbers as null).
 *
 * The records hashed have known shapes, so their key orders are fixed ahead of time (a Shape) and
 * nothing is sorted while serialising. An object that does not fit its shape (a key the shape does
 * not know, or a key holding undefined) is serialised by sorting its keys, with the same result.
 */
export interface Shape {
  /** The object's keys, sorted. */
  readonly keys: readonly string[];
  /** The keys as JSON strings, in the same order. */
  readonly quoted: readonly string[];
  /** The shapes of the values under some keys (for an array value, of each of its items). */
  readonly children?: Readonly<Record<string, Shape>>;
}

export function shape(keys: string[], children?: Record<string, Shape>): Shape {
  const sorted = [...keys].sort();
  return { keys: sorted, quoted: sorted.map((key) => JSON.stringify(key)), children };
}

const skipped = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';

function writeValue(value: unknown, shapeOf: Shape | undefined): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i += 1) {
          if (i > 0) out += ',';
          const item = value[i];
          out += skipped(item) ? 'null' : writeValue(item, shapeOf);
        }
        return `${out}]`;
      }
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return writeValue((value as { toJSON(): unknown }).toJSON(), undefined);
      return writeObject(value as Record<string, unknown>, shapeOf, null);
    default:
      return JSON.stringify(value) ?? 'null';
  }
}

/** An object's members in its shape's order; the sorted fallback when it does not fit. excluded: keys left out. */
function writeObject(object: Record<string, unknown>, shapeOf: Shape | undefined, excluded: ReadonlySet<string> | null): string {
  if (shapeOf) {
    let out = '{';
    let written = 0;
    for (let i = 0; i < shapeOf.keys.length; i += 1) {
      const key = shapeOf.keys[i];
      const value = object[key];
      if (value === undefined) continue;
      if (skipped(value)) {
        written = -1;
        break;
      }
      out += `${written === 0 ? '' : ','}${shapeOf.quoted[i]}:${writeValue(value, shapeOf.children?.[key])}`;
      written += 1;
    }
    let own = 0;
    for (const key in object) if (excluded === null || !excluded.has(key)) own += 1;
    if (written === own) return `${out}}`;
  }
  const keys = Object.keys(object).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    if (excluded?.has(key)) continue;
    const value = object[key];
    if (skipped(value)) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${writeValue(value, shapeOf?.children?.[key])}`;
    first = false;
  }
  return `${out}}`;
}

/** The canonical JSON of an object of the given shape, leaving out the excluded keys. */
export function canonicalJson(object: object, shapeOf?: Shape, excluded: ReadonlySet<string> | null = null): string {
  return writeObject(object as Record<string, unknown>, shapeOf, excluded);
}
