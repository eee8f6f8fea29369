import { answer, errorResponse, json, operatorErrors, operatorSecurity, queryParameters, ref, uuidPath } from './openapi-helpers.js';

const page = (name: string) => ({ description: name, content: json('Page') });

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
    '/v1/admin/operator-tokens': {
      get: {
        summary: 'Named operator tokens, revoked ones included (never the secrets)',
        security: operatorSecurity,
        responses: { 200: answer('The tokens, newest first', 'OperatorTokenList'), ...operatorErrors },
      },
      post: {
        summary: "Make a named operator token and show its secret once (the running service's way to do what npm run operator:token -- create does)",
        security: operatorSecurity,
        requestBody: { required: true, content: json('OperatorTokenRequest') },
        responses: {
          201: answer('The token; its secret is shown only here', 'OperatorTokenCreated'),
          400: errorResponse('Invalid body'),
          409: errorResponse('An active token of that name exists: revoke it first'),
          ...operatorErrors,
        },
      },
    },
    '/v1/admin/operator-tokens/{name}/revoke': {
      post: {
        summary: 'Revoke the active token of that name: it opens nothing from now on, and browser sessions opened with it end',
        security: operatorSecurity,
        parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          200: answer('Revoked', 'OperatorTokenRevoked'),
          400: errorResponse('Not a token name'),
          404: errorResponse('No active token of that name'),
          ...operatorErrors,
        },
      },
    },
    '/v1/admin/stats': {
      get: {
        summary: 'Dashboard: listings, directory, quarantine, feed keys, queue depths (with REDIS_URL)',
        security: operatorSecurity,
        responses: { 200: answer('The figures', 'AdminStats'), ...operatorErrors },
      },
    },
    '/v1/admin/stats/history': {
      get: {
        summary: 'The dashboard charts: feeds per day by outcome, listings applied, invalid share, leads by outcome, queue depth samples',
        security: operatorSecurity,
        parameters: queryParameters('StatsHistoryQuery'),
        responses: { 200: answer('One entry per day, and the queue samples', 'StatsHistory'), 400: errorResponse('Invalid query'), ...operatorErrors },
      },
    },
    '/v1/admin/listings/{office}/{uniqueId}/review': {
      get: {
        summary:
          'One listing for review: the stored record, whether the public sees it and why not, the feed that last wrote it and its issues for it, its status history',
        security: operatorSecurity,
        parameters: ['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        responses: { 200: answer('The review', 'ListingReview'), 404: errorResponse('No such listing'), ...operatorErrors },
      },
    },
    '/v1/admin/listings': {
      get: {
        summary: 'Listings for review, hidden and non-public included',
        security: operatorSecurity,
        parameters: queryParameters('AdminListingsQuery'),
        responses: { 200: answer('A page of listings and the total', 'AdminListingPage'), 400: errorResponse('Invalid query'), ...operatorErrors },
      },
    },
    '/v1/admin/listings/{office}/{uniqueId}': {
      get: {
        summary: 'One listing as stored: the full record (withheld prices and streets included), whatever its status',
        security: operatorSecurity,
        parameters: ['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        responses: { 200: { description: 'The stored canonical record', content: json('Listing') }, 404: errorResponse('No such listing'), ...operatorErrors },
      },
    },
    '/v1/admin/listings/visibility': {
      post: {
        summary: 'Hide or show a listing (survives re-ingest; removes it from every public read and the directory)',
        security: operatorSecurity,
        requestBody: { required: true, content: json('VisibilityRequest') },
        responses: {
          200: answer('The listing as it now is', 'VisibilityResult'),
          400: errorResponse('Invalid body'),
          404: errorResponse('Unknown listing'),
          ...operatorErrors,
        },
      },
    },
    '/v1/admin/feeds': {
      get: {
        summary: 'Recent feed events: source, scope, counts, status, outcome, issues',
        description:
          "outcome says what became of each feed: queued or running while it is read; ok (every listing stored), with_invalid (some listings or projects refused), not_well_formed (the feed could not be read; nothing stored), tripped (the circuit breaker held a full feed's archive for review); failed (ingestion gave up) or rejected (refused before it was read).",
        security: operatorSecurity,
        parameters: queryParameters('AdminFeedsQuery'),
        responses: {
          200: { description: 'A page of feed events and the total', content: json('AdminFeedPage') },
          400: errorResponse('Invalid query'),
          ...operatorErrors,
        },
      },
    },
    '/v1/admin/feeds/{feedId}/issues': {
      get: {
        summary: "Any feed's issues in feed order, paged and filtered by level and code, with counts per level and code",
        description: 'Each issue keeps its number among all the feed’s issues (from 1) whatever the filters.',
        security: operatorSecurity,
        parameters: [uuidPath('feedId', 'Feed id'), ...queryParameters('FeedIssueQuery')],
        responses: {
          200: answer('A page of issues', 'FeedIssuePage'),
          400: errorResponse('Invalid query'),
          404: errorResponse('Unknown feed'),
          ...operatorErrors,
        },
      },
    },
    '/v1/admin/feeds/{feedId}/retry': {
      post: {
        summary: 'Run a failed feed again (failed -> queued): its stored body is ingested from the start, and what was already applied comes back unchanged',
        security: operatorSecurity,
        parameters: [uuidPath('feedId', 'Feed id')],
        responses: {
          200: answer('Queued again', 'FeedRetried'),
          404: errorResponse('Unknown feed'),
          409: errorResponse('The feed is not failed'),
          ...operatorErrors,
        },
      },
    },
    '/v1/admin/audit': {
      get: {
        summary: 'Who did what, newest first',
        security: operatorSecurity,
        parameters: queryParameters('AuditQuery'),
        responses: { 200: answer('A page of entries and the total', 'AuditPage'), 400: errorResponse('Invalid query'), ...operatorErrors },
      },
    },
    '/v1/admin/site/settings': {
      put: {
        summary: 'Set identity, seo or favicon',
        security: operatorSecurity,
        requestBody: { required: true, content: json('SiteSettingRequest') },
        responses: { 200: answer('Every setting after the change', 'SiteSettings'), 400: errorResponse('Invalid body'), ...operatorErrors },
      },
    },
    '/v1/admin/site/nav': {
      put: {
        summary: 'Replace the navigation (an empty list restores the default)',
        security: operatorSecurity,
        requestBody: { required: true, content: json('NavRequest') },
        responses: { 200: answer('The navigation after the change', 'Navigation'), 400: errorResponse('Invalid body'), ...operatorErrors },
      },
    },
    '/v1/admin/site/pages': {
      get: { summary: 'All pages, drafts included', security: operatorSecurity, responses: { 200: answer('Every page', 'PageList'), ...operatorErrors } },
      post: {
        summary: 'Create a page',
        security: operatorSecurity,
        requestBody: { required: true, content: json('PageCreate') },
        responses: { 200: page('The page'), 400: errorResponse('Invalid body'), 409: errorResponse('Slug in use'), ...operatorErrors },
      },
    },
    '/v1/admin/site/pages/{slug}': {
      get: {
        summary: 'A page by slug, draft or published',
        security: operatorSecurity,
        parameters: [{ name: 'slug', in: 'path', required: true, schema: { type: 'string', maxLength: 80 } }],
        responses: { 200: page('The page'), 404: errorResponse('Unknown slug'), ...operatorErrors },
      },
    },
    '/v1/admin/site/pages/id/{id}': {
      put: {
        summary: 'Update a page (any of its fields)',
        security: operatorSecurity,
        parameters: [uuidPath('id', 'Page id')],
        requestBody: { required: true, content: json('PageUpdate') },
        responses: {
          200: page('The page'),
          400: errorResponse('Invalid body'),
          404: errorResponse('Unknown page'),
          409: errorResponse('Slug in use'),
          ...operatorErrors,
        },
      },
      delete: {
        summary: 'Delete a page',
        security: operatorSecurity,
        parameters: [uuidPath('id', 'Page id')],
        responses: { 200: answer('Deleted', 'PageDeleted'), 404: errorResponse('Unknown page'), ...operatorErrors },
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
