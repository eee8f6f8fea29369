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
 * Sends a public JSON answer (or another text: contentType) with a strong ETag (a hash of its UTF-8 bytes) and Cache-Control; a
 * request whose If-None-Match names that ETag is answered 304 with no body.
 *
 * The text is hashed and written as a string, each encoding it to UTF-8 in native code. Encoding
 * it once into a Buffer and hashing and sending that instead is cheaper alone, but under load each
 * page's 25 KB buffer outside the JavaScript heap costs more in allocation and collection than the
 * second encoding: about 30 µs more per answer at 8,000 answers a second (measured with the answer
 * fixed, no database, 16 connections).
 */
export function sendCacheable(req: Request, res: Response, json: string, contentType = 'application/json; charset=utf-8'): void {
  const etag = `"${hash('sha256', json, 'base64url').slice(0, 27)}"`;
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', CACHE_CONTROL);
  if (matches(req.headers['if-none-match'], etag)) {
    res.status(304).end();
    return;
  }
  // The answer as it is: Express's res.send would check for freshness and a body type again.
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(json, 'utf8'));
  res.end(json, 'utf8');
}
