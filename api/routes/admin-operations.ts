import { adminFeeds, adminListings, adminStats, setListingHidden } from '../../db/admin-reads.js';
import { getFeedEvent, reopenFailedFeedEvent } from '../../db/feed-events.js';
import { type FeedIssueQuery, feedIssues } from '../../db/feed-history.js';
import { listingReview } from '../../db/listing-review.js';
import { storedListing } from '../../db/listings-store.js';
import { listAudit, recordAudit } from '../../db/operators.js';
import { statsHistory } from '../../db/stats-history.js';
import { HttpError, notFound } from '../../lib/errors.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { answer, errorResponse, json, uuidPath } from '../openapi-helpers.js';
import { uuidParam } from '../path-params.js';
import type { RouteSpec } from '../route-registry.js';

/** Dashboard, listing review and visibility, feed events and the audit log (behind the operator credential). */
export const adminOperationRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/admin/stats',
    operationId: 'adminStats',
    tag: 'admin',
    auth: 'operator',
    summary: 'Dashboard: listings, directory, quarantine, feed keys, queue depths (with REDIS_URL)',
    responses: { 200: answer('The figures', 'AdminStats') },
    handle:
      ({ ingestQueue, leadQueue, webhookQueue, db, config }) =>
      async (_req, res) => {
        const stats: Record<string, unknown> = await adminStats(db);
        if (config.redisUrl !== null) {
          // Queue depths only when REDIS_URL is set; an unreachable Redis is reported, not fatal.
          stats.queues = await Promise.all([ingestQueue.counts(), leadQueue.counts(), webhookQueue?.counts()]).then(
            ([ingest, leadDelivery, webhookDelivery]) => ({ ingest, leadDelivery, ...(webhookDelivery ? { webhookDelivery } : {}) }),
            (err: Error) => ({ error: err.message }),
          );
        }
        res.json(stats);
      },
  },
  {
    method: 'get',
    path: '/v1/admin/listings',
    operationId: 'adminListListings',
    tag: 'admin',
    auth: 'operator',
    summary: 'Listings for review, hidden and non-public included',
    query: 'AdminListingsQuery',
    responses: { 200: answer('A page of listings and the total', 'AdminListingPage'), 400: errorResponse('Invalid query') },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        res.json(await adminListings(db, validQuery(req)));
      },
  },
  {
    method: 'get',
    path: '/v1/admin/stats/history',
    operationId: 'adminStatsHistory',
    tag: 'admin',
    auth: 'operator',
    summary: 'The dashboard charts: feeds per day by outcome, listings applied, invalid share, leads by outcome, queue depth samples',
    query: 'StatsHistoryQuery',
    responses: { 200: answer('One entry per day, and the queue samples', 'StatsHistory'), 400: errorResponse('Invalid query') },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        res.json(await statsHistory(db, validQuery<{ days: number }>(req).days));
      },
  },
  {
    method: 'get',
    path: '/v1/admin/listings/{office}/{uniqueId}/review',
    operationId: 'adminReviewListing',
    tag: 'admin',
    auth: 'operator',
    summary:
      'One listing for review: the stored record, whether the public sees it and why not, the feed that last wrote it and its issues for it, its status history',
    parameters: ['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    responses: { 200: answer('The review', 'ListingReview'), 404: errorResponse('No such listing') },
    handle:
      ({ db }) =>
      async (req, res) => {
        const { office, uniqueId } = req.params as { office: string; uniqueId: string };
        const review = await listingReview(db, office, uniqueId);
        if (!review) throw notFound(`no listing ${office}/${uniqueId}`);
        res.json(review);
      },
  },
  {
    method: 'get',
    path: '/v1/admin/listings/{office}/{uniqueId}',
    operationId: 'adminGetListing',
    tag: 'admin',
    auth: 'operator',
    summary: 'One listing as stored: the full record (withheld prices and streets included), whatever its status',
    parameters: ['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    responses: { 200: { description: 'The stored canonical record', content: json('Listing') }, 404: errorResponse('No such listing') },
    handle:
      ({ db }) =>
      async (req, res) => {
        const { office, uniqueId } = req.params as { office: string; uniqueId: string };
        const listing = await storedListing(db, office, uniqueId);
        if (!listing) throw notFound(`no listing ${office}/${uniqueId}`);
        res.json(listing);
      },
  },
  {
    method: 'post',
    path: '/v1/admin/listings/visibility',
    operationId: 'adminSetListingVisibility',
    tag: 'admin',
    auth: 'operator',
    summary: 'Hide or show a listing (survives re-ingest; removes it from every public read and the directory)',
    body: 'VisibilityRequest',
    responses: {
      200: answer('The listing as it now is', 'VisibilityResult'),
      400: errorResponse('Invalid body'),
      404: errorResponse('Unknown listing'),
    },
    handle: ({ db }, { validBody }) => [
      jsonBody('4kb'),
      async (req, res) => {
        const body = validBody<{ officeId: string; uniqueId: string; hidden: boolean }>(req);
        const result = await setListingHidden(db, body.officeId, body.uniqueId, body.hidden);
        if (!result) throw notFound(`no listing ${body.officeId}/${body.uniqueId}`);
        await recordAudit(db, { actor: operatorOf(res), action: body.hidden ? 'listing.hide' : 'listing.show', target: result.listingKey });
        res.json(result);
      },
    ],
  },
  {
    method: 'get',
    path: '/v1/admin/feeds',
    operationId: 'adminListFeeds',
    tag: 'admin',
    auth: 'operator',
    summary: 'Recent feed events: source, scope, counts, status, outcome, issues',
    description:
      "outcome says what became of each feed: queued or running while it is read; ok (every listing stored), with_invalid (some listings or projects refused), not_well_formed (the feed could not be read; nothing stored), tripped (the circuit breaker held a full feed's archive for review); failed (ingestion gave up) or rejected (refused before it was read).",
    query: 'AdminFeedsQuery',
    responses: {
      200: { description: 'A page of feed events and the total', content: json('AdminFeedPage') },
      400: errorResponse('Invalid query'),
    },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        res.json(await adminFeeds(db, validQuery(req)));
      },
  },
  {
    method: 'get',
    path: '/v1/admin/feeds/{feedId}/issues',
    operationId: 'adminListFeedIssues',
    tag: 'admin',
    auth: 'operator',
    summary: "Any feed's issues in feed order, paged and filtered by level and code, with counts per level and code",
    description: 'Each issue keeps its number among all the feed’s issues (from 1) whatever the filters.',
    parameters: [uuidPath('feedId', 'Feed id')],
    query: 'FeedIssueQuery',
    responses: {
      200: answer('A page of issues', 'FeedIssuePage'),
      400: errorResponse('Invalid query'),
      404: errorResponse('Unknown feed'),
    },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        const query = validQuery<FeedIssueQuery>(req);
        const feedId = uuidParam(req.params.feedId, 'feed');
        const event = await getFeedEvent(db, feedId);
        if (!event) throw notFound(`no feed ${feedId}`);
        res.json({ feedId, status: event.status, ...(await feedIssues(db, feedId, query)) });
      },
  },
  {
    method: 'post',
    path: '/v1/admin/feeds/{feedId}/retry',
    operationId: 'adminRetryFeed',
    tag: 'admin',
    auth: 'operator',
    summary: 'Run a failed feed again (failed -> queued): its stored body is ingested from the start, and what was already applied comes back unchanged',
    parameters: [uuidPath('feedId', 'Feed id')],
    responses: {
      200: answer('Queued again', 'FeedRetried'),
      404: errorResponse('Unknown feed'),
      409: errorResponse('The feed is not failed'),
    },
    handle:
      ({ ingestQueue, db }) =>
      async (req, res) => {
        const feedId = uuidParam(req.params.feedId, 'feed');
        if (!(await reopenFailedFeedEvent(db, feedId))) {
          const event = await getFeedEvent(db, feedId);
          if (!event) throw notFound(`no feed ${feedId}`);
          if (event.status === 'failed')
            throw new HttpError(
              409,
              `feed ${feedId} cannot be retried: its body was deleted at ${event.bodyPurgedAt} after the retention period; ask the sender to push it again`,
            );
          throw new HttpError(409, `feed ${feedId} is ${event.status}; only failed feeds can be retried`);
        }
        // Its body is still stored: the job runs it again from the start. Should the queue be away,
        // the sweep re-queues the queued event.
        await ingestQueue.requeue(feedId).catch((err: Error) => req.log?.warn({ feedId, err: err.message }, 'feed retry queued by the sweep instead'));
        await recordAudit(db, { actor: operatorOf(res), action: 'feed.retry', target: feedId });
        res.json({ feedId, status: 'queued' });
      },
  },
  {
    method: 'get',
    path: '/v1/admin/audit',
    operationId: 'adminAuditLog',
    tag: 'admin',
    auth: 'operator',
    summary: 'Who did what, newest first',
    query: 'AuditQuery',
    responses: { 200: answer('A page of entries and the total', 'AuditPage'), 400: errorResponse('Invalid query') },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        res.json(await listAudit(db, validQuery(req)));
      },
  },
];
