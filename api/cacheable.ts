import { hash } from 'node:crypto';
import type { Request, Response } from 'express';

/**
 * How long a public answer may be kept by browsers, portals and shared caches: the same 30 s for
 * which totals and facets may already lag writes, so a withdrawn listing leaves every cache
 * within about a minute.
 */
export const PUBLIC_MAX_AGE_S = 30;
const CACHE_CONTROL = `public, max-age=${PUBLIC_MAX_AGE_S}`;

/**
 * Whether If-None-Match names the ETag (weak comparison, RFC 9110 13.1.2). Unlike Express's
 * req.fresh, a request's Cache-Control: no-cache does not stop it: that asks caches on the way to
 * revalidate with the origin, and this is the origin answering (fetch() sends it with every
 * conditional request).
 */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * Sends a public JSON answer with a strong ETag (a hash of its bytes) and Cache-Control; a request
 * whose If-None-Match names that ETag is answered 304 with no body. The text is encoded to UTF-8
 * once, and those bytes are both hashed and sent (hashing the string and sending it would encode
 * a page of listings twice).
 */
export function sendCacheable(req: Request, res: Response, json: string): void {
  const body = Buffer.from(json, 'utf8');
  const etag = `"${hash('sha256', body, 'base64url').slice(0, 27)}"`;
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', CACHE_CONTROL);
  if (matches(req.headers['if-none-match'], etag)) {
    res.status(304).end();
    return;
  }
  // The answer as it is: Express's res.send would check for freshness and a body type again.
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', body.length);
  res.end(body);
}
