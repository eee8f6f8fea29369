import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * Security headers on every answer (helmet).
 *
 * Pages get the full set. Their Content-Security-Policy allows only the service's own scripts,
 * styles, images and API calls, which the /developer and /docs pages keep to; Swagger UI's own
 * stylesheet sets inline styles, so 'unsafe-inline' is allowed for styles (never for scripts).
 * Bull Board's page (/admin/queues) ships an inline script of its own, so it gets the same
 * headers without a script policy.
 *
 * The JSON API (every path under /v1/) gets the headers OWASP's REST Security Cheat Sheet asks of
 * API answers: a policy that lets the answer load nothing and be framed nowhere
 * (`default-src 'none'; frame-ancestors 'none'`), `X-Frame-Options: DENY`,
 * `X-Content-Type-Options: nosniff` and Strict-Transport-Security, and
 * `Cross-Origin-Resource-Policy: same-origin` so no other site can load an answer without CORS.
 * The headers that only steer how a browser treats a document (opener and agent-cluster
 * isolation, referrer, DNS prefetch, download and old XSS-filter switches) are left off: a JSON
 * answer is never rendered as one, and each header is paid for on every read.
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
  const api = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    xFrameOptions: { action: 'deny' },
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    referrerPolicy: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  });
  return (req, res, next) => {
    const path = req.path;
    const headers = path.startsWith('/v1/') ? api : path.startsWith('/admin/queues') ? board : strict;
    headers(req, res, next);
  };
}

/**
 * CORS for what browsers on other sites may call: the public reads (GET) and consumer enquiries
 * (POST /v1/leads), from the origins in CORS_ORIGINS ('*' for any). No credentials are ever
 * allowed cross-origin; feed, admin and developer routes send no CORS headers at all.
 */
export function publicCors(origins: '*' | string[]): RequestHandler {
  return cors({
    origin: origins === '*' ? '*' : origins,
    methods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowedHeaders: ['content-type', 'x-request-id'],
    exposedHeaders: ['x-request-id', 'retry-after', 'ratelimit', 'ratelimit-policy'],
    maxAge: 600,
  });
}

/** Paths whose answers browsers on other origins may read (and POST /v1/leads: enquiryCors). */
export const PUBLIC_CORS_PATHS = ['/v1/listings', '/v1/reso', '/v1/projects', '/v1/agents', '/v1/offices', '/v1/countries', '/v1/fx', '/v1/site', '/v1/alerts'];

/**
 * CORS for consumer enquiries only: POST /v1/leads and its preflight. A feed key's reads of its
 * leads (GET /v1/leads, /v1/leads/{id}) send no CORS headers, like every other key route.
 */
export function enquiryCors(origins: '*' | string[]): RequestHandler {
  const allow = publicCors(origins);
  return (req, res, next) => {
    const enquiry = req.path === '/v1/leads' && (req.method === 'POST' || (req.method === 'OPTIONS' && req.get('access-control-request-method') === 'POST'));
    if (enquiry) allow(req, res, next);
    else next();
  };
}
