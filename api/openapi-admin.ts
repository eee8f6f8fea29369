import { answer, errorResponse, json, operatorErrors, operatorSecurity, ref } from './openapi-helpers.js';

/** Paths of the operator API beyond ingestion, and the public site reads (docs/architecture.md, Operators and Site content and FX). */
export function adminPaths(): Record<string, unknown> {
  return {
    '/admin/session': {
      post: {
        summary: "Open the queue board's browser session (the console does this when an operator signs in)",
        description:
          'Sets the operator_session cookie: HttpOnly, SameSite=Strict, Path=/admin, Secure over HTTPS, for 8 hours. The queue board at /admin/queues takes it in place of the Bearer header. The session ends when the token it was opened with is revoked (or OPERATOR_TOKEN changes).',
        security: operatorSecurity,
        responses: { 201: answer('The session is open', 'OperatorSession'), ...operatorErrors },
      },
      delete: {
        summary: 'End the browser session (signing out of the console); clears the cookie',
        responses: { 204: { description: 'Ended (also when there was none)' }, 403: errorResponse('Sent by a page on another site') },
      },
    },
    '/v1/site': {
      get: {
        summary: 'Settings, navigation and published pages',
        responses: { 200: { description: 'The site', content: json('Site') }, 503: errorResponse('Database unavailable') },
      },
    },
    '/v1/site/pages/{slug}': {
      get: {
        summary: 'A published page',
        parameters: [{ name: 'slug', in: 'path', required: true, schema: { type: 'string', maxLength: 80 } }],
        responses: {
          200: { description: 'The page', content: { 'application/json': { schema: ref('Page') } } },
          404: errorResponse('Unknown or unpublished'),
          503: errorResponse('Database unavailable'),
        },
      },
    },
  };
}
