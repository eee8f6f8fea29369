import type { Request, RequestHandler, Response } from 'express';
import { type FeedEvent, getFeedEvent } from '../../db/feed-events.js';
import { type FeedHistoryQuery, type FeedIssueQuery, feedIssues, keyFeeds } from '../../db/feed-history.js';
import { listingStatus } from '../../db/listing-status.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { feedKeyOf } from '../auth/feed-key.js';
import { readFeedInput } from '../feed-input.js';
import { bodyIdleTimeout } from '../middleware/body-idle-timeout.js';
import { refuseUnfinishedBodyOnShutdown } from '../middleware/unfinished-body.js';
import { releaseUploadSlot, uploadSlots } from '../middleware/upload-slots.js';
import { errorResponse, feedRequestBody, header, json, queryParameters, uuidPath } from '../openapi-helpers.js';
import { isUuid } from '../path-params.js';
import type { RouteDeps } from '../route-deps.js';
import type { RouteSpec } from '../route-registry.js';
import { type PushOutcome, queueAndWait, storeFeed } from '../services/feed-intake.js';

const unauthorized = errorResponse('Missing, wrong, suspended or revoked key');
const unavailable = errorResponse('Database or job queue unavailable; nothing was accepted');

/** What an Idempotency-Key may hold: 1 to 255 visible ASCII characters (a UUID is the usual choice). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

function idempotencyKeyOf(req: Request): string | null {
  const value = req.get('idempotency-key');
  if (value === undefined) return null;
  if (!IDEMPOTENCY_KEY.test(value)) throw badRequest('the Idempotency-Key header must be 1 to 255 visible ASCII characters (a UUID, say)');
  return value;
}

/** Seconds a 202 answer asks the client to wait before polling the feed's status (Retry-After). */
export const POLL_AFTER_S = 2;

export const feedStatusBody = (event: FeedEvent) => ({
  feedId: event.id,
  status: event.status,
  outcome: event.outcome,
  source: event.source,
  format: event.format,
  mode: event.mode,
  officeScope: event.officeScope,
  bodyBytes: event.bodyBytes,
  bodySha256: event.bodySha256,
  attempts: event.attempts,
  createdAt: event.createdAt,
  finishedAt: event.finishedAt,
  progress: event.status === 'running' ? event.progress : null,
  result: event.result,
  error: event.error,
});

/** A feed of this key's, or 404: another key's feed is as invisible as a missing one. */
async function ownFeed(deps: Pick<RouteDeps, 'db'>, feedId: string, res: Response): Promise<FeedEvent> {
  const event = isUuid(feedId) ? await getFeedEvent(deps.db, feedId) : null;
  if (!event || event.keyId !== feedKeyOf(res).id) throw notFound(`no feed ${feedId} for this key`);
  return event;
}

/**
 * The answer to a push once its feed is stored and queued: 200 with the result when it finished in
 * time; 400 when the feed was not well-formed (listings before the fault were applied); else 202
 * with where to poll (and, but for a failed feed, when: Retry-After).
 */
function answerPush(res: Response, feedId: string, outcome: PushOutcome): void {
  const statusUrl = `/v1/feeds/${feedId}`;
  res.location(statusUrl);
  if (outcome.state === 'done') {
    const fault = outcome.result.issues.find((i) => i.code === 'feed_not_well_formed');
    if (!fault) return void res.json({ feedId, ...outcome.result });
    return void res.status(400).json({
      error: `${fault.message}; listings before the fault were applied, nothing was archived (feed ${feedId})`,
      feedId,
      statusUrl,
    });
  }
  // Still to finish: poll after POLL_AFTER_S. A failed feed changes only when an operator runs it again.
  if (outcome.state === 'failed') return void res.status(202).json({ feedId, status: 'failed', statusUrl, error: outcome.error });
  res.set('Retry-After', String(POLL_AFTER_S));
  res.status(202).json({ feedId, status: outcome.state, statusUrl, retryAfter: POLL_AFTER_S });
}

/** POST /v1/feeds: an upload slot, the body's idle limit and the shutdown check, then store, queue and wait for the outcome (services/feed-intake.ts). */
function pushFeedHandlers(deps: RouteDeps): RequestHandler[] {
  const { config } = deps;
  const uploads = uploadSlots({ perKey: config.feedUploadsPerKey, total: config.feedUploadsTotal, keyOf: (_req, res) => feedKeyOf(res).id });
  const outcomeDeps = { db: deps.db, ingestQueue: deps.ingestQueue, feedSyncWaitMs: config.feedSyncWaitMs, shutdown: deps.shutdown };
  return [
    uploads,
    bodyIdleTimeout(config.feedBodyIdleMs),
    refuseUnfinishedBodyOnShutdown(deps.shutdown),
    async (req, res) => {
      const idempotencyKey = idempotencyKeyOf(req);
      const input = await readFeedInput(req, config.feedMaxBytes);
      const stored = await storeFeed(deps.db, feedKeyOf(res), input, idempotencyKey).finally(() => releaseUploadSlot(res));
      // A repeat is answered as its first feed is: that feed's id, status and result; nothing new is queued.
      if (stored.repeat) res.set('Idempotent-Replayed', 'true');
      answerPush(res, stored.event.id, await queueAndWait(outcomeDeps, stored, req.log));
    },
  ];
}

/**
 * POST /v1/feeds, GET /v1/feeds/whoami, a key's own feeds (GET /v1/feeds, /v1/feeds/{feedId} and
 * its issues) and its offices' stored listings (docs/ingestion.md).
 */
export const feedRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/feeds/whoami',
    operationId: 'whoAmI',
    tag: 'ingestion',
    auth: 'pendingFeedKey',
    summary: 'The key presented: client, offices and status',
    responses: {
      200: { description: 'A suspended or active key', content: json('WhoAmI') },
      401: errorResponse('Missing, unknown or revoked key'),
      503: unavailable,
    },
    handle: () => (_req, res) => {
      const key = feedKeyOf(res);
      res.json({ keyId: key.id, clientName: key.clientName, officeIds: key.officeIds, status: key.status });
    },
  },
  {
    method: 'post',
    path: '/v1/feeds',
    operationId: 'pushFeed',
    tag: 'ingestion',
    auth: 'feedKeyOrHeader',
    summary: 'Ingest a feed: store it, queue it, wait up to FEED_SYNC_WAIT_MS for the result',
    description:
      "Same body forms as /v1/validate. The raw feed is stored before anything else; each valid listing of the key's offices is inserted, updated, found unchanged or ignored as stale. mode=full then archives what the feed owns and no longer carries for the offices present in it (listing feeds: listings outside projects; project feeds: projects and their listings), unless the circuit breaker trips. A body may be sent compressed (Content-Encoding gzip, deflate or br); the limit applies to the bytes sent and to what they unpack to. A JSON feed request's xml string is read into storage as it arrives, never held whole in memory; its other members may hold 65,536 characters in all. A key may have FEED_UPLOADS_PER_KEY uploads in flight at once (one more: 429) and the service FEED_UPLOADS_TOTAL (one more: 503); both carry Retry-After.",
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
          'Stored, not finished within FEED_SYNC_WAIT_MS (or failed for good): poll statusUrl with the same key, after Retry-After seconds while it is queued or running. On the embedded default (no REDIS_URL) a push waits for its feed only if the feed starts within 1 s: when pushes arrive faster than the service ingests them, each is answered 202 (status queued) at once and ingested afterwards; nothing needs to be sent again',
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
      503: errorResponse('The service has its limit of uploads in flight, or the database or queue is unavailable; Retry-After when it is the upload limit'),
    },
    handle: pushFeedHandlers,
  },
  {
    method: 'get',
    path: '/v1/feeds/listings/{office}/{uniqueId}',
    operationId: 'getOwnListing',
    tag: 'ingestion',
    auth: 'feedKeyOrHeader',
    summary:
      "One of this key's offices' listings as its owner sees it: the full stored record, whether the public sees it and why not, and the last feed that carried it",
    description:
      'The stored record in full (whatever the agent withholds from the public and whatever its status), whether public reads show it and, when the default search does not, why (hidden by an operator, withheld by its source, sold, leased, withdrawn, off the market, archived by a full feed, never sent valid), an open circuit-breaker review holding its archive, and the newest feed of the office that carried it with what it did and its issues for it.',
    parameters: ['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    responses: {
      200: { description: 'Where the listing stands', content: json('ListingStatus') },
      401: unauthorized,
      404: errorResponse("No such listing among this key's offices: none is stored and no recent feed of the office carried it"),
      503: unavailable,
    },
    handle:
      ({ db }) =>
      async (req, res) => {
        const { office, uniqueId } = req.params as { office: string; uniqueId: string };
        // A key reads the full stored record of its own offices' listings only; any other office's
        // listing is as invisible as a missing one.
        const status = feedKeyOf(res).officeIds.includes(office) ? await listingStatus(db, office, uniqueId) : null;
        if (!status) throw notFound(`no listing ${office}/${uniqueId} for this key: none is stored and no recent feed of the office carried it`);
        res.json(status);
      },
  },
  {
    method: 'get',
    path: '/v1/feeds',
    operationId: 'listOwnFeeds',
    tag: 'ingestion',
    auth: 'feedKeyOrHeader',
    summary: "This key's feeds, newest first: status, outcome, counts and issue counts",
    description:
      'Every feed pushed with this key (never another key’s), paged with limit and offset, filtered by status and outcome. outcome=with_invalid, not_well_formed, tripped or failed picks the feeds that need a look; each feed’s issues are at statusUrl + /issues.',
    query: 'FeedHistoryQuery',
    responses: {
      200: { description: 'A page of feeds', content: json('FeedHistoryPage') },
      400: errorResponse('Invalid query parameter'),
      401: unauthorized,
      503: unavailable,
    },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        const query = validQuery<FeedHistoryQuery>(req);
        res.json(await keyFeeds(db, feedKeyOf(res).id, query));
      },
  },
  {
    method: 'get',
    path: '/v1/feeds/{feedId}',
    operationId: 'getFeed',
    tag: 'ingestion',
    auth: 'feedKeyOrHeader',
    summary: 'A feed sent with this key: status, and the ingestion result when done',
    parameters: [uuidPath('feedId', 'From the 202 answer')],
    responses: {
      200: { description: 'The feed event', content: json('FeedStatus') },
      401: unauthorized,
      404: errorResponse('No such feed for this key'),
      503: unavailable,
    },
    handle: (deps) => async (req, res) => {
      res.json(feedStatusBody(await ownFeed(deps, String(req.params.feedId), res)));
    },
  },
  {
    method: 'get',
    path: '/v1/feeds/{feedId}/issues',
    operationId: 'listFeedIssues',
    tag: 'ingestion',
    auth: 'feedKeyOrHeader',
    summary: 'The issues of a feed sent with this key, in feed order, paged and filtered by level and code',
    description:
      'Each issue keeps its number among all the feed’s issues (from 1) whatever the filters; counts gives errors, warnings and each code’s count over all of them. A feed not yet done has none yet.',
    parameters: [uuidPath('feedId', 'From the answer to POST /v1/feeds')],
    query: 'FeedIssueQuery',
    responses: {
      200: { description: 'A page of issues', content: json('FeedIssuePage') },
      400: errorResponse('Invalid query parameter'),
      401: unauthorized,
      404: errorResponse('No such feed for this key'),
      503: unavailable,
    },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        const query = validQuery<FeedIssueQuery>(req);
        const event = await ownFeed({ db }, String(req.params.feedId), res);
        res.json({ feedId: event.id, status: event.status, ...(await feedIssues(db, event.id, query)) });
      },
  },
];
