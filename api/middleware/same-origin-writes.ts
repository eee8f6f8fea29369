import type { RequestHandler } from 'express';
import { HttpError } from '../../lib/errors.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether the Origin header names this server (scheme-less host comparison, as a browser sends it). */
function originIsHost(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}

/**
 * Refuses state-changing requests a page on another site could make a signed-in browser send:
 * one whose Sec-Fetch-Site or Origin says it came from another site is a 403, and one that shows
 * neither a same-origin Origin/Sec-Fetch-Site nor a JSON content type (which a cross-site form
 * cannot send without a CORS preflight, which this service never grants) is a 403 too. Reads pass,
 * and so do requests carrying a Bearer token: a browser never adds one on its own, so a page on
 * another site cannot send it (only credentials a browser sends on its own, such as the console's session cookie, need the check).
 */
export const sameOriginWrites: RequestHandler = (req, _res, next) => {
  if (SAFE.has(req.method) || /^bearer\s/i.test(req.get('authorization') ?? '')) return next();
  const site = req.get('sec-fetch-site');
  const origin = req.get('origin');
  const crossSite = (site !== undefined && site !== 'same-origin' && site !== 'none') || (origin !== undefined && !originIsHost(origin, req.get('host')));
  if (crossSite) throw new HttpError(403, 'a state-changing request from another site is refused; use the page this service serves');
  const sameOrigin = site === 'same-origin' || site === 'none' || origin !== undefined;
  if (!sameOrigin && !req.is('application/json'))
    throw new HttpError(403, "a state-changing request must come from this service's own page (same origin) or carry Content-Type: application/json");
  next();
};
