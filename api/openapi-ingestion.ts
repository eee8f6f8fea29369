import { errorResponse, feedRequestBody, header, json, queryParameters, uuidPath } from './openapi-helpers.js';

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
      get: {
        summary: "This key's feeds, newest first: status, outcome, counts and issue counts",
        description:
          'Every feed pushed with this key (never another key’s), paged with limit and offset, filtered by status and outcome. outcome=with_invalid, not_well_formed, tripped or failed picks the feeds that need a look; each feed’s issues are at statusUrl + /issues.',
        security: [{ feedKey: [] }, { feedToken: [] }],
        parameters: queryParameters('FeedHistoryQuery'),
        responses: {
          200: { description: 'A page of feeds', content: json('FeedHistoryPage') },
          400: errorResponse('Invalid query parameter'),
          401: unauthorized,
          503: unavailable,
        },
      },
      post: {
        summary: 'Ingest a feed: store it, queue it, wait up to FEED_SYNC_WAIT_MS for the result',
        description:
          "Same body forms as /v1/validate. The raw feed is stored before anything else; each valid listing of the key's offices is inserted, updated, found unchanged or ignored as stale. mode=full then archives what the feed owns and no longer carries for the offices present in it (listing feeds: listings outside projects; project feeds: projects and their listings), unless the circuit breaker trips. A body may be sent compressed (Content-Encoding gzip, deflate or br); the limit applies to the bytes sent and to what they unpack to. A JSON feed request's xml string is read into storage as it arrives, never held whole in memory; its other members may hold 65,536 characters in all. A key may have FEED_UPLOADS_PER_KEY uploads in flight at once (one more: 429) and the service FEED_UPLOADS_TOTAL (one more: 503); both carry Retry-After.",
        security: [{ feedKey: [] }, { feedToken: [] }],
        parameters: [
          ...queryParameters('FeedQuery'),
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$', examples: ['5f0c9a52-3b8e-4d8e-9a8f-0d2f1c7e4b11'] },
            description:
              'Makes the push safe to send again (after a timeout, say): the same key with the same request (body, format, mode and context) within 24 hours is answered with the first feed (same feedId, its status or result; Idempotent-Replayed: true) and never makes a second feed; the same key with another request is 409. Without it, a push whose request a feed of the same key is still ingesting (queued or running) is answered with that feed.',
          },
        ],
        requestBody: feedRequestBody,
        responses: {
          200: {
            description: 'Ingestion result, with the feedId (Location: its status URL)',
            headers: { 'Idempotent-Replayed': header('true when this answers a repeat with the first feed', { type: 'string', enum: ['true'] }) },
            content: json('FeedIngested'),
          },
          202: {
            description:
              'Stored, not finished within FEED_SYNC_WAIT_MS (or failed for good): poll statusUrl with the same key, after Retry-After seconds while it is queued or running',
            headers: {
              Location: header('The status URL'),
              'Retry-After': header('queued or running: seconds before the first poll', { type: 'integer' }),
              'Idempotent-Replayed': header('true when this answers a repeat with the first feed', { type: 'string', enum: ['true'] }),
            },
            content: json('FeedAccepted'),
          },
          408: errorResponse('The request body stopped arriving for FEED_BODY_IDLE_MS; nothing stored'),
          409: errorResponse('The Idempotency-Key was used in the last 24 hours for a different request (the error names its feed); nothing stored'),
          400: {
            description:
              'Invalid request, including a RESO or project document nested more than 64 levels deep (nothing stored: an Error), or the feed is not well formed: it was stored and listings before the fault were applied, nothing archived; the answer gives its feedId and statusUrl (also the Location header)',
            content: json('FeedError'),
          },
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
        summary:
          "One of this key's offices' listings as its owner sees it: the full stored record, whether the public sees it and why not, and the last feed that carried it",
        description:
          'The stored record in full (whatever the agent withholds from the public and whatever its status), whether public reads show it and, when the default search does not, why (hidden by an operator, withheld by its source, sold, leased, withdrawn, off the market, archived by a full feed, never sent valid), an open circuit-breaker review holding its archive, and the newest feed of the office that carried it with what it did and its issues for it.',
        security: [{ feedKey: [] }, { feedToken: [] }],
        parameters: ['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        responses: {
          200: { description: 'Where the listing stands', content: json('ListingStatus') },
          401: unauthorized,
          404: errorResponse("No such listing among this key's offices: none is stored and no recent feed of the office carried it"),
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
    '/v1/feeds/{feedId}/issues': {
      get: {
        summary: 'The issues of a feed sent with this key, in feed order, paged and filtered by level and code',
        description:
          'Each issue keeps its number among all the feed’s issues (from 1) whatever the filters; counts gives errors, warnings and each code’s count over all of them. A feed not yet done has none yet.',
        security: [{ feedKey: [] }, { feedToken: [] }],
        parameters: [uuidPath('feedId', 'From the answer to POST /v1/feeds'), ...queryParameters('FeedIssueQuery')],
        responses: {
          200: { description: 'A page of issues', content: json('FeedIssuePage') },
          400: errorResponse('Invalid query parameter'),
          401: unauthorized,
          404: errorResponse('No such feed for this key'),
          503: unavailable,
        },
      },
    },
  };
}
