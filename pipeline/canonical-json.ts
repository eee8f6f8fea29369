/**
 * JSON with every object's keys in sorted order (UTF-16 code units), whatever order the object
 * holds them in: the canonical serialisation content hashes are taken over. Its text is the same
 * as JSON.stringify of a key-sorted copy (undefined, function and symbol values left out of
 * objects and written as null in arrays, non-finite numbers as null).
 *
 * It is made as exactly that: a copy of the value with every object's keys inserted in sorted
 * order, serialised by JSON.stringify. The records hashed have known shapes, so their key orders
 * are fixed ahead of time (a Shape), with a function per shape that builds the sorted copy as one
 * object literal; an object that does not fit its shape (a key the shape does not know) is copied
 * by sorting its keys. JSON.stringify writes keys that are array indices ("2", "10") first, in
 * numeric order, so a value holding such a key is written by a serialiser that sorts as it goes.
 */
export interface Shape {
  /** The object's keys, sorted. */
  readonly keys: readonly string[];
  /** The shapes of the values under some keys (for an array value, of each of its items). */
  readonly children?: Readonly<Record<string, Shape>>;
  /** Builds the sorted copy of an object that fits the shape; null when a key is an array index. */
  readonly build: ((object: Record<string, unknown>, copy: typeof copyValue, children: Shape['children']) => object) | null;
}

/** A key JSON.stringify would write before the others (an array index). */
const isIndexKey = (key: string) => /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;

export function shape(keys: string[], children?: Record<string, Shape>): Shape {
  const sorted = [...keys].sort();
  const quoted = sorted.map((key) => JSON.stringify(key));
  // One object literal with the keys in sorted order; each value copied (with its own shape, if any).
  // The keys are this module's callers' constants, written as JSON strings.
  const members = quoted.map((key) => `${key}: copy(object[${key}], children?.[${key}])`);
  const build = sorted.some(isIndexKey) ? null : (new Function('object', 'copy', 'children', `return { ${members.join(', ')} };`) as Shape['build']);
  return { keys: sorted, children, build };
}

/** Thrown while copying when an object holds an array-index key: the value is then written by writeSorted. */
class IndexKeyFound extends Error {}

function copyValue(value: unknown, shapeOf: Shape | undefined): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i += 1) out[i] = copyValue(value[i], shapeOf);
    return out;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return copyValue((value as { toJSON(): unknown }).toJSON(), undefined);
  return copyObject(value as Record<string, unknown>, shapeOf, null);
}

/**
 * The object with its keys in sorted order and its values copied likewise, the excluded keys left
 * out. Undefined, function and symbol values are copied as they are: JSON.stringify leaves them out.
 */
function copyObject(object: Record<string, unknown>, shapeOf: Shape | undefined, excluded: ReadonlySet<string> | null): object {
  const keys = Object.keys(object);
  if (shapeOf?.build) {
    // It fits when every own key (but the excluded) is one of the shape's: count both.
    let inShape = 0;
    for (let i = 0; i < shapeOf.keys.length; i += 1) if (object[shapeOf.keys[i]] !== undefined) inShape += 1;
    let own = 0;
    for (let i = 0; i < keys.length; i += 1) if (object[keys[i]] !== undefined && !excluded?.has(keys[i])) own += 1;
    if (inShape === own) return shapeOf.build(object, copyValue, shapeOf.children);
  }
  keys.sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    if (excluded?.has(key)) continue;
    if (isIndexKey(key)) throw new IndexKeyFound();
    out[key] = copyValue(object[key], shapeOf?.children?.[key]);
  }
  return out;
}

const skipped = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';

/**
 * The same text written piece by piece, sorting every object's keys as it goes: for the rare value
 * with an array-index key, which a sorted copy cannot hold in sorted order.
 */
function writeSorted(value: unknown, excluded: ReadonlySet<string> | null = null): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (skipped(item) ? 'null' : writeSorted(item))).join(',')}]`;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return writeSorted((value as { toJSON(): unknown }).toJSON());
  const members: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    if (!excluded?.has(key) && !skipped(item)) members.push(`${JSON.stringify(key)}:${writeSorted(item)}`);
  }
  return `{${members.join(',')}}`;
}

/** The canonical JSON of an object of the given shape, leaving out the excluded keys. */
export function canonicalJson(object: object, shapeOf?: Shape, excluded: ReadonlySet<string> | null = null): string {
  try {
    return JSON.stringify(copyObject(object as Record<string, unknown>, shapeOf, excluded));
  } catch (err) {
    if (!(err instanceof IndexKeyFound)) throw err;
    return writeSorted(object, excluded);
  }
}
