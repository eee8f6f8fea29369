/** An object JSON.stringify writes member by member (not an array, and without a toJSON of its own). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * JSON.stringify(value), in pieces: the members of plain objects and arrays one at a time, down to
 * `depth` levels, each value below that whole (by JSON.stringify). Joined, the pieces are exactly
 * JSON.stringify(value): members that are undefined, functions or symbols are left out of objects
 * and written as null in arrays, as JSON.stringify does.
 *
 * For text too long to hold at once (a large feed's result: an upsert and often a warning per
 * listing, 14 MB for 50,000): the caller takes pieces as it sends them. json-stream-stringify does
 * the same as a stream, token by token in JavaScript; on such a result it took 350-500 ms against
 * JSON.stringify's 65-120 ms, where this, calling JSON.stringify per member, keeps near the latter.
 */
export function* jsonPieces(value: unknown, depth = 2): Generator<string> {
  if (depth > 0 && Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i += 1) {
      if (i > 0) yield ',';
      yield* jsonPieces(value[i], depth - 1);
    }
    yield ']';
    return;
  }
  if (depth > 0 && isPlainObject(value)) {
    yield '{';
    let first = true;
    for (const [key, member] of Object.entries(value)) {
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      yield `${first ? '' : ','}${JSON.stringify(key)}:`;
      first = false;
      yield* jsonPieces(member, depth - 1);
    }
    yield '}';
    return;
  }
  // Whatever JSON.stringify leaves out (undefined, a function) is null where it stands in an array.
  yield JSON.stringify(value) ?? 'null';
}
