import express from 'express';
import { badRequest } from '../../lib/errors.js';

/** The deepest nesting of arrays and objects a JSON request body may have. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether a JSON text nests arrays and objects deeper than max. One pass over the bytes, outside
 * strings: no recursion, so no body, however deep, can exhaust the stack.
 */
export function jsonDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i += 1) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c)
        i += 1; // backslash: the next byte is escaped
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x7b || b === 0x5b) {
      depth += 1;
      if (depth > max) return true;
    } else if (b === 0x7d || b === 0x5d) depth -= 1;
  }
  return false;
}

export const tooDeep = () => badRequest(`request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep, the limit`);

/**
 * express.json with a byte limit and a nesting limit: a body nested deeper than MAX_JSON_DEPTH is a
 * 400 naming the limit before it is parsed. Every JSON route parses its body through this.
 */
export function jsonBody(limit: number | string, type?: (req: express.Request) => boolean) {
  return express.json({
    limit,
    ...(type ? { type: (req) => type(req as express.Request) } : {}),
    verify: (_req, _res, buf) => {
      if (jsonDeeperThan(buf, MAX_JSON_DEPTH)) throw tooDeep();
    },
  });
}
