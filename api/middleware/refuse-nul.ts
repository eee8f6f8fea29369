import type { RequestHandler } from 'express';
import { badRequest } from '../../lib/errors.js';

const NUL = '\u0000';

/**
 * Text fields cannot hold NUL (U+0000): PostgreSQL refuses it in text and jsonb, so a NUL in a
 * path or query parameter is a 400 naming where it was, before any route reads it.
 */
export const refuseNulInUrl: RequestHandler = (req, _res, next) => {
  if (!/%00/i.test(req.url) && !req.url.includes(NUL)) return next();
  for (const [name, value] of Object.entries(req.query)) {
    if (name.includes(NUL) || [value].flat().some((v) => typeof v === 'string' && v.includes(NUL))) {
      throw badRequest(`query parameter ${JSON.stringify(name.replaceAll(NUL, '\\0'))} contains a NUL character (U+0000), which no text field can hold`);
    }
  }
  throw badRequest('the path contains a NUL character (U+0000), which no identifier can hold');
};

/** Where in a parsed JSON value a string (or property name) holds NUL, as `root.a.b[2]`; null if nowhere. */
export function nulPath(value: unknown, root: string, skip: ReadonlySet<string> = new Set()): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? root : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = nulPath(value[i], `${root}[${i}]`, skip);
      if (found) return found;
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const at = `${root}.${key.replaceAll(NUL, '\\0')}`;
      if (skip.has(at)) continue;
      if (key.includes(NUL)) return at;
      const found = nulPath(item, at, skip);
      if (found) return found;
    }
  }
  return null;
}
