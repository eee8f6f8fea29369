import { SERVICE_VERSION } from '../lib/version.js';
import { errorResponse, header, toComponent } from './openapi-helpers.js';
import { TAGS } from './openapi-tags.js';
import { webhookEvents } from './openapi-webhooks.js';
import { describeRoutes } from './route-registry.js';
import { REGISTERED_ROUTES } from './route-table.js';
import { GUIDES } from './routes/guides.js';
import { schemas } from './schemas/index.js';

/** The OpenAPI 3.1 document, generated from the same schemas ajv validates with. */
export function buildOpenApi(): Record<string, unknown> {
  const document = {
    openapi: '3.1.0',
    info: {
      title: 'Listing ingestion and directory service',
      version: SERVICE_VERSION,
      license: { name: 'UNLICENSED (all rights reserved; publishing this description grants no licence)', identifier: 'LicenseRef-UNLICENSED' },
      description: `Feeds in (REAXML, RESO Web API JSON, project documents), one canonical listing model out.\n\nGuides: ${GUIDES.map(([name, title]) => `[${title}](/guides/${name})`).join(' · ')}.`,
    },
    servers: [{ url: '/', description: 'This service (paths are relative to where it answers)' }],
    tags: [...TAGS],
    // Every operation comes from its route (api/route-table.ts): a route is its operation.
    paths: describeRoutes(REGISTERED_ROUTES),
    webhooks: webhookEvents(),
    components: {
      // Query schemas are published as each operation's parameters, not as components of their own.
      schemas: Object.fromEntries(schemas.filter((s) => !s.$id.endsWith('Query')).map((s) => [s.$id, toComponent(s)])),
      securitySchemes: {
        feedKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'Feed key from POST /v1/developer/keys, approved by an operator. POST /v1/feeds also accepts it in x-feed-token.',
        },
        feedToken: { type: 'apiKey', in: 'header', name: 'x-feed-token' },
        operator: { type: 'http', scheme: 'bearer', description: 'OPERATOR_TOKEN or a named operator token (npm run operator:token).' },
      },
    },
  };
  describeUrlRefusal(document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>);
  describeHeaders(document.paths as Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>);
  return document;
}

/**
 * Every route refuses a NUL character in its path or query (400): said on the operations that
 * have no other client error, so each operation documents the 4xx it can answer.
 */
function describeUrlRefusal(paths: Record<string, Record<string, { responses: Record<string, unknown> }>>): void {
  for (const operations of Object.values(paths))
    for (const operation of Object.values(operations)) {
      if (!Object.keys(operation.responses).some((code) => code.startsWith('4')))
        operation.responses[400] = errorResponse('A NUL character (%00) in the path or query: refused on every route');
    }
}

/**
 * The headers answers carry: X-Request-Id on every one; Retry-After on every 429 and 503 (where
 * the limit or outage says when to come back); RateLimit and RateLimit-Policy (IETF draft 8) on the
 * answers of rate-limited routes; Location on a stored feed's answers.
 */
function describeHeaders(paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>): void {
  const limited = new Set([
    'POST /v1/validate',
    'POST /v1/developer/keys',
    'POST /v1/leads',
    'POST /v1/alerts',
    'GET /v1/reso',
    'GET /v1/reso/$metadata',
    'GET /v1/reso/{resourcePath}',
  ]);
  for (const [path, operations] of Object.entries(paths))
    for (const [method, operation] of Object.entries(operations))
      for (const [code, response] of Object.entries(operation.responses)) {
        const headers: Record<string, unknown> = {
          'X-Request-Id': header("The request's id (a well-formed one sent in X-Request-Id is kept), also on every log line about it"),
        };
        if (code === '429' || code === '503')
          headers['Retry-After'] = header('Seconds to wait before trying again, where the limit or the outage says', { type: 'integer', minimum: 0 });
        if (limited.has(`${method.toUpperCase()} ${path}`)) {
          headers.RateLimit = header('What is left of the allowance of this client address (IETF RateLimit header fields, draft 8)');
          headers['RateLimit-Policy'] = header('The allowance: requests per window (IETF RateLimit header fields, draft 8)');
        }
        if (path.startsWith('/v1/reso')) headers['OData-Version'] = header('The OData version of the answer: 4.0');
        if (path === '/v1/feeds' && (code === '200' || code === '202')) headers.Location = header("The stored feed's status URL (GET /v1/feeds/{feedId})");
        // A copy: one response object may serve several operations.
        operation.responses[code] = { ...response, headers: { ...headers, ...response.headers } };
      }
}
