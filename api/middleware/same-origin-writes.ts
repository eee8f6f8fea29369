import type { Request, RequestHandler } from 'express';
import { HttpError } from '../../lib/errors.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The origin an Origin header names, as a URL; null for `null` or anything unreadable. */
function urlOf(origin: string): URL | null {
  try {
    const url = new URL(origin);
    return url.host ? url : null;
  } catch {
    return null;
  }
}

/**
 * Refuses state-changing requests a page on another site could make a signed-in browser send.
 * Reads pass, and so do requests carrying a Bearer token: a browser never adds one on its own, so a
 * page on another site cannot send it (only credentials a browser sends on its own, such as the
 * console's session cookie, need the check). For the rest:
 *
 * - **Sec-Fetch-Site**, which a browser sets itself and no page can, decides when present:
 *   `same-origin` (or `none`, the user's own navigation) passes; anything else is a 403. It is what
 *   the browser saw, so it holds behind a proxy that rewrites the Host header.
 * - Without it (an older browser), an **Origin** header must name this service: the host the request
 *   was sent to (the Host header, or X-Forwarded-Host from a trusted proxy, TRUST_PROXY; compared by
 *   host and port, as a TLS-terminating proxy may hide the scheme), or the origin of PUBLIC_BASE_URL
 *   (scheme, host and port). Any other Origin, `null` included, is a 403.
 * - With neither, the request must carry `Content-Type: application/json`, which a form on another
 *   site cannot send without a CORS preflight (never granted to these routes); else a 403.
 */
export function sameOriginWrites(publicBaseUrl: string | null): RequestHandler {
  const publicOrigin = publicBaseUrl === null ? null : new URL(publicBaseUrl).origin;
  const isOwn = (req: Request, origin: string) => {
    const url = urlOf(origin);
    return url !== null && (url.origin === publicOrigin || url.host === req.host);
  };
  return (req, _res, next) => {
    if (SAFE.has(req.method) || /^bearer\s/i.test(req.get('authorization') ?? '')) return next();
    const site = req.get('sec-fetch-site');
    const origin = req.get('origin');
    const crossSite = site !== undefined ? site !== 'same-origin' && site !== 'none' : origin !== undefined && !isOwn(req, origin);
    if (crossSite) throw new HttpError(403, 'a state-changing request from another site is refused; use the page this service serves');
    if (site === undefined && origin === undefined && !req.is('application/json'))
      throw new HttpError(403, "a state-changing request must come from this service's own page (same origin) or carry Content-Type: application/json");
    next();
  };
}
