import express from 'express';
import { badRequest } from '../../lib/errors.js';
import { jsonDeeperThan, MAX_JSON_DEPTH, tooDeepMessage } from '../../lib/json-depth.js';

export const tooDeep = () => badRequest(tooDeepMessage('request body'));

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
