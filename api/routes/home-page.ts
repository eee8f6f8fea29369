import { Router } from 'express';
import { SERVICE_VERSION } from '../../lib/version.js';
import { GUIDE_STYLE, GUIDES } from './guides.js';

const link = (href: string, text: string, what: string) => `<li><a href="${href}">${text}</a> ${what}</li>`;

/** The landing page: where to go first, for an integrator, an operator and a machine. */
const PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
  `<title>Listing service</title><link rel="icon" href="data:,"><style>${GUIDE_STYLE}</style></head><body><main>` +
  `<h1>Listing ingestion and directory service</h1><p>Version ${SERVICE_VERSION}. CRMs push property feeds (REAXML, RESO Web API JSON, project documents) by API or SFTP; ` +
  'the service keeps one canonical listing per property and serves search, listings, an agent and office directory, and enquiries.</p>' +
  '<h2>Start here</h2><ul>' +
  link('/developer', 'Developer page', ': request a feed key and dry-run a feed in your browser') +
  link('/docs/', 'API reference', ': every route, with its parameters, answers and errors') +
  link('/v1/openapi.json', 'OpenAPI document', ': the same, for generating a client (OpenAPI 3.1)') +
  link('/console', 'Operator console', ': approve keys, follow feeds, review quarantine, leads and site content (operator token)') +
  '</ul><h2>Guides</h2><ul>' +
  GUIDES.map(([name, title]) => link(`/guides/${name}`, title.split(':')[0], title.includes(':') ? `:${title.split(':').slice(1).join(':')}` : '')).join('') +
  '</ul><h2>Health</h2><ul>' +
  link('/healthz', '/healthz', ': the process is up') +
  link('/readyz', '/readyz', ': the database (and the queue, with Redis) answer') +
  '</ul></main></body></html>';

/** GET /: the landing page. */
export function homePageRouter(): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'");
    res.type('text/html; charset=utf-8').send(PAGE);
  });
  return router;
}
