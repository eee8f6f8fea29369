import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';

/**
 * How long a public answer may be kept by browsers, portals and shared caches: the same 30 s for
 * which totals and facets may already lag writes, so a withdrawn listing leaves every cache
 * within about a minute.
 */
export const PUBLIC_MAX_AGE_S = 30;

/**
 * Sends a public JSON answer with a strong ETag (a hash of its bytes) and Cache-Control; a request
 * whose If-None-Match names that ETag is answered 304 with no body.
 */
export function sendCacheable(req: Request, res: Response, json: string): void {
  res.set('ETag', `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`);
  res.set('Cache-Control', `public, max-age=${PUBLIC_MAX_AGE_S}`);
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res.type('application/json').send(json);
}
