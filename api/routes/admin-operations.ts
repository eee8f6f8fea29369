import { Router } from 'express';
import { adminFeeds, adminListings, adminStats, setListingHidden } from '../../db/admin-reads.js';
import { getFeedEvent, reopenFailedFeedEvent } from '../../db/feed-events.js';
import { type FeedIssueQuery, feedIssues } from '../../db/feed-history.js';
import type { Db } from '../../db/knex.js';
import { listingReview } from '../../db/listing-review.js';
import { storedListing } from '../../db/listings-store.js';
import { listAudit, recordAudit } from '../../db/operators.js';
import { statsHistory } from '../../db/stats-history.js';
import { HttpError, notFound } from '../../lib/errors.js';
import type { JobQueue } from '../../workers/job-queue.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { uuidParam } from '../path-params.js';
import { assertValid, assertValidQuery } from '../validators.js';

/** Dashboard, listing review and visibility, feed events and the audit log (behind the operator credential). */
export function adminOperationsRouter(deps: { db: Db; ingestQueue: JobQueue; leadQueue: JobQueue; webhookQueue?: JobQueue; queueIsRedis: boolean }): Router {
  const router = Router();
  const { db } = deps;

  router.get('/v1/admin/stats', async (_req, res) => {
    const stats: Record<string, unknown> = await adminStats(db);
    if (deps.queueIsRedis) {
      // Queue depths only when REDIS_URL is set; an unreachable Redis is reported, not fatal.
      stats.queues = await Promise.all([deps.ingestQueue.counts(), deps.leadQueue.counts(), deps.webhookQueue?.counts()]).then(
        ([ingest, leadDelivery, webhookDelivery]) => ({ ingest, leadDelivery, ...(webhookDelivery ? { webhookDelivery } : {}) }),
        (err: Error) => ({ error: err.message }),
      );
    }
    res.json(stats);
  });

  router.get('/v1/admin/listings', async (req, res) => {
    res.json(await adminListings(db, assertValidQuery('AdminListingsQuery', req.query)));
  });

  router.get('/v1/admin/stats/history', async (req, res) => {
    res.json(await statsHistory(db, assertValidQuery<{ days: number }>('StatsHistoryQuery', req.query).days));
  });

  router.get('/v1/admin/listings/:office/:uniqueId/review', async (req, res) => {
    const { office, uniqueId } = req.params as { office: string; uniqueId: string };
    const review = await listingReview(db, office, uniqueId);
    if (!review) throw notFound(`no listing ${office}/${uniqueId}`);
    res.json(review);
  });

  router.get('/v1/admin/listings/:office/:uniqueId', async (req, res) => {
    const { office, uniqueId } = req.params as { office: string; uniqueId: string };
    const listing = await storedListing(db, office, uniqueId);
    if (!listing) throw notFound(`no listing ${office}/${uniqueId}`);
    res.json(listing);
  });

  router.post('/v1/admin/listings/visibility', jsonBody('4kb'), async (req, res) => {
    const body = assertValid<{ officeId: string; uniqueId: string; hidden: boolean }>('VisibilityRequest', req.body ?? null, 'body');
    const result = await setListingHidden(db, body.officeId, body.uniqueId, body.hidden);
    if (!result) throw notFound(`no listing ${body.officeId}/${body.uniqueId}`);
    await recordAudit(db, { actor: operatorOf(res), action: body.hidden ? 'listing.hide' : 'listing.show', target: result.listingKey });
    res.json(result);
  });

  router.get('/v1/admin/feeds', async (req, res) => {
    res.json(await adminFeeds(db, assertValidQuery('AdminFeedsQuery', req.query)));
  });

  router.get('/v1/admin/feeds/:feedId/issues', async (req, res) => {
    const query = assertValidQuery<FeedIssueQuery>('FeedIssueQuery', req.query);
    const feedId = uuidParam(req.params.feedId, 'feed');
    const event = await getFeedEvent(db, feedId);
    if (!event) throw notFound(`no feed ${feedId}`);
    res.json({ feedId, status: event.status, ...(await feedIssues(db, feedId, query)) });
  });

  router.post('/v1/admin/feeds/:feedId/retry', async (req, res) => {
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
    await deps.ingestQueue.requeue(feedId).catch((err: Error) => req.log?.warn({ feedId, err: err.message }, 'feed retry queued by the sweep instead'));
    await recordAudit(db, { actor: operatorOf(res), action: 'feed.retry', target: feedId });
    res.json({ feedId, status: 'queued' });
  });

  router.get('/v1/admin/audit', async (req, res) => {
    res.json(await listAudit(db, assertValidQuery('AuditQuery', req.query)));
  });

  return router;
}
