import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * Security headers on every answer, HTML pages and API alike (helmet). The Content-Security-Policy
 * allows only the service's own scripts, styles, images and API calls, which the /developer and
 * /docs pages keep to; Swagger UI's own stylesheet sets inline styles, so 'unsafe-inline' is
 * allowed for styles (never for scripts). Bull Board's page (/admin/queues) ships an inline
 * script of its own, so it gets the same headers without a script policy.
 */
export function securityHeaders(): RequestHandler {
  const directives = {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    fontSrc: ["'self'", 'data:'],
    objectSrc: ["'none'"],
    frameAncestors: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
  };
  const strict = helmet({ contentSecurityPolicy: { useDefaults: false, directives } });
  const board = helmet({ contentSecurityPolicy: { useDefaults: false, directives: { ...directives, scriptSrc: ["'self'", "'unsafe-inline'"] } } });
  return (req, res, next) => (req.path.startsWith('/admin/queues') ? board : strict)(req, res, next);
}

/**
 * CORS for what browsers on other sites may call: the public reads (GET) and consumer enquiries
 * (POST /v1/leads), from the origins in CORS_ORIGINS ('*' for any). No credentials are ever
 * allowed cross-origin; feed, admin and developer routes send no CORS headers at all.
 */
export function publicCors(origins: '*' | string[]): RequestHandler {
  return cors({
    origin: origins === '*' ? '*' : origins,
    methods: ['GET', 'HEAD', 'POST'],
    allowedHeaders: ['content-type', 'x-request-id'],
    exposedHeaders: ['x-request-id', 'retry-after', 'ratelimit', 'ratelimit-policy'],
    maxAge: 600,
  });
}

/** Paths whose answers browsers on other origins may read. */
export const PUBLIC_CORS_PATHS = ['/v1/listings', '/v1/reso', '/v1/projects', '/v1/agents', '/v1/offices', '/v1/countries', '/v1/fx', '/v1/site', '/v1/leads'];
