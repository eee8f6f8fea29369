import { errorResponse, feedRequestBody, json, officePath, operatorErrors, operatorSecurity, queryParameters, ref, uuidPath } from './openapi-helpers.js';

const unauthorized = errorResponse('Missing, wrong, suspended or revoked key');
const unavailable = errorResponse('Database or job queue unavailable; nothing was accepted');

/** Paths of feed keys, POST /v1/feeds and the operator's ingestion routes (docs/architecture.md, Ingestion). */
export function ingestionPaths(): Record<string, unknown> {
  return {
    '/v1/developer/keys': {
      post: {
        summary: 'Request a feed key (created suspended; shown once)',
        description:
          'Public and rate limited per client address (KEY_REQUEST_RATE_LIMIT per hour). An operator approves the key before it can push; poll /v1/feeds/whoami to see when.',
        requestBody: { required: true, content: json('KeyRequest') },
        responses: {
          201: { description: 'The key, shown only now', content: json('KeyCreated') },
          400: errorResponse('Invalid request'),
          429: errorResponse('Too many key requests from this address'),
          503: unavailable,
        },
      },
    },
    '/v1/feeds/whoami': {
      get: {
        summary: 'The key presented: client, offices and status',
        security: [{ feedKey: [] }],
        responses: {
          200: { description: 'A suspended or active key', content: json('WhoAmI') },
          401: errorResponse('Missing, unknown or revoked key'),
          503: unavailable,
        },
      },
    },
    '/v1/feeds': {
      post: {
        summary: 'Ingest a feed: store it, queue it, wait up to FEED_SYNC_WAIT_MS for the result',
        description:
          "Same body forms as /v1/validate. The raw feed is stored before anything else; each valid listing of the key's offices is inserted, updated, found unchanged or ignored as stale. mode=full then archives what the feed owns and no longer carries for the offices present in it (listing feeds: listings outside projects; project feeds: projects and their listings), unless the circuit breaker trips. A body may be sent compressed (Content-Encoding gzip, deflate or br); the limit applies to the bytes sent and to what they unpack to. A JSON feed request's xml string is read into storage as it arrives, never held whole in memory; its other members may hold 65,536 characters in all. A key may have FEED_UPLOADS_PER_KEY uploads in flight at once (one more: 429) and the service FEED_UPLOADS_TOTAL (one more: 503); both carry Retry-After.",
        security: [{ feedKey: [] }, { feedToken: [] }],
        parameters: queryParameters('FeedQuery'),
        requestBody: feedRequestBody,
        responses: {
          200: { description: 'Ingestion result, with the feedId (Location: its status URL)', content: json('FeedIngested') },
          202: {
            description: 'Stored, not finished within FEED_SYNC_WAIT_MS (or failed for good): poll statusUrl with the same key',
            content: json('FeedAccepted'),
          },
          408: errorResponse('The request body stopped arriving for FEED_BODY_IDLE_MS; nothing stored'),
          400: errorResponse('Invalid request, or the feed is not well-formed (listings before the fault were applied; nothing archived)'),
          401: unauthorized,
          413: errorResponse('Body (sent or unpacked) larger than FEED_MAX_BYTES, or the members other than xml hold more than 65,536 characters'),
          415: errorResponse('Unsupported Content-Type, Content-Encoding or charset'),
          429: errorResponse('This key already has its limit of uploads in flight; Retry-After says when to send again'),
          503: errorResponse(
            'The service has its limit of uploads in flight, or the database or queue is unavailable; Retry-After when it is the upload limit',
          ),
        },
      },
    },
    '/v1/feeds/listings/{office}/{uniqueId}': {
      get: {
        summary: "One of this key's offices' listings as stored: the full record, whatever the agent withholds from the public and whatever its status",
        security: [{ feedKey: [] }, { feedToken: [] }],
        parameters: ['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        responses: {
          200: { description: 'The stored canonical record', content: json('Listing') },
          401: unauthorized,
          404: errorResponse("No such listing among this key's offices"),
          503: unavailable,
        },
      },
    },
    '/v1/feeds/{feedId}': {
      get: {
        summary: 'A feed sent with this key: status, and the ingestion result when done',
        security: [{ feedKey: [] }, { feedToken: [] }],
        parameters: [uuidPath('feedId', 'From the 202 answer')],
        responses: {
          200: { description: 'The feed event', content: json('FeedStatus') },
          401: unauthorized,
          404: errorResponse('No such feed for this key'),
          503: unavailable,
        },
      },
    },
    '/v1/admin/keys': {
      get: {
        summary: 'All feed keys (never the secrets)',
        security: operatorSecurity,
        responses: {
          200: {
            description: 'Keys, newest first',
            content: { 'application/json': { schema: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: ref('FeedKey') } } } } },
          },
          ...operatorErrors,
        },
      },
      post: {
        summary: "Create an already-active key and show its secret once (the running service's way to do what npm run key:create does)",
        security: operatorSecurity,
        requestBody: { required: true, content: json('KeyRequest') },
        responses: {
          201: { description: 'The key; its secret is shown only here', content: json('KeyCreated') },
          400: errorResponse('Invalid body'),
          ...operatorErrors,
        },
      },
    },
    ...Object.fromEntries(
      (['approve', 'revoke'] as const).map((action) => [
        `/v1/admin/keys/{id}/${action}`,
        {
          post: {
            summary: action === 'approve' ? 'Approve a suspended key (it can push from now on)' : 'Revoke a key (401 from now on)',
            security: operatorSecurity,
            parameters: [uuidPath('id', 'Feed key id')],
            responses: {
              200: { description: 'The key after the change', content: json('FeedKey') },
              404: errorResponse('Unknown key'),
              409: errorResponse('A revoked key cannot be approved'),
              ...operatorErrors,
            },
          },
        },
      ]),
    ),
    '/v1/admin/quarantine': {
      get: {
        summary: 'Circuit-breaker trips awaiting review',
        security: operatorSecurity,
        parameters: queryParameters('QuarantineQuery'),
        responses: {
          200: {
            description: 'Items, newest first',
            content: {
              'application/json': { schema: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: ref('QuarantineItem') } } } },
            },
          },
          400: errorResponse('Invalid query'),
          ...operatorErrors,
        },
      },
    },
    '/v1/admin/offices/{office}/drop-settings': {
      get: {
        summary: "An office's context for SFTP-dropped feeds (defaults where unset)",
        security: operatorSecurity,
        parameters: [officePath],
        responses: { 200: { description: 'The settings', content: json('DropSettings') }, 400: errorResponse('Office id too long'), ...operatorErrors },
      },
      put: {
        summary: "Set an office's context for SFTP-dropped feeds: currency, country, locale, alert email",
        description: 'Applies to files claimed from now on; see docs/sftp.md.',
        security: operatorSecurity,
        parameters: [officePath],
        requestBody: { required: true, content: json('DropSettingsRequest') },
        responses: { 200: { description: 'The settings as stored', content: json('DropSettings') }, 400: errorResponse('Invalid body'), ...operatorErrors },
      },
    },
    '/v1/admin/quarantine/{id}/resolve': {
      post: {
        summary: 'Mark an item reviewed; with { "action": "apply" } also archive the held listings still absent and not written since',
        security: operatorSecurity,
        parameters: [uuidPath('id', 'Quarantine item id')],
        requestBody: { required: false, content: json('ResolveRequest') },
        responses: {
          200: { description: 'The resolved item', content: json('QuarantineItem') },
          400: errorResponse('Invalid body'),
          404: errorResponse('Unknown item'),
          ...operatorErrors,
        },
      },
    },
  };
}
