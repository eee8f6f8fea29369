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

/**
 * Where in a parsed JSON value a string (or property name) holds NUL, as `root.a.b[2]`; null if
 * nowhere. Iterative (depth-first, in document order): no value, however deep, exhausts the stack.
 */
export function nulPath(value: unknown, root: string, skip: ReadonlySet<string> = new Set()): string | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length) {
    const [item, at] = stack.pop()!;
    if (typeof item === 'string') {
      if (item.includes(NUL)) return at;
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i -= 1) stack.push([item[i], `${at}[${i}]`]);
    } else if (typeof item === 'object' && item !== null) {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i -= 1) {
        const [key, child] = entries[i];
        const path = `${at}.${key.replaceAll(NUL, '\\0')}`;
        if (skip.has(path)) continue;
        if (key.includes(NUL)) return path;
        stack.push([child, path]);
      }
    }
  }
  return null;
}
