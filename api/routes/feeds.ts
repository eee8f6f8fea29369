import { type Request, type Response, Router } from 'express';
import { type FeedEvent, getFeedEvent } from '../../db/feed-events.js';
import { type FeedHistoryQuery, type FeedIssueQuery, feedIssues, keyFeeds } from '../../db/feed-history.js';
import type { Db } from '../../db/knex.js';
import { listingStatus } from '../../db/listing-status.js';
import { badRequest, notFound } from '../../lib/errors.js';
import type { JobQueue } from '../../workers/job-queue.js';
import { feedKeyOf, requireFeedKey } from '../auth/feed-key.js';
import { readFeedInput } from '../feed-input.js';
import { bodyIdleTimeout } from '../middleware/body-idle-timeout.js';
import { refuseUnfinishedBodyOnShutdown } from '../middleware/unfinished-body.js';
import { releaseUploadSlot, uploadSlots } from '../middleware/upload-slots.js';
import { isUuid } from '../path-params.js';
import { type PushOutcome, queueAndWait, storeFeed } from '../services/feed-intake.js';
import { assertValidQuery } from '../validators.js';

export interface FeedsDeps {
  db: Db;
  ingestQueue: JobQueue;
  feedMaxBytes: number;
  feedSyncWaitMs: number;
  /** How long a request body may stop arriving before 408. */
  feedBodyIdleMs: number;
  /** Uploads at once per key (one more: 429) and in all (one more: 503). */
  uploadsPerKey: number;
  uploadsTotal: number;
  /**
   * Aborted when the process shuts down: a body still arriving is answered 503 (nothing stored),
   * every request waiting for its feed's outcome 202 at once.
   */
  shutdown?: AbortSignal;
}

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

/**
 * POST /v1/feeds, GET /v1/feeds/whoami, a key's own feeds (GET /v1/feeds, /v1/feeds/{feedId} and
 * its issues) and its offices' stored listings (docs/ingestion.md).
 */
export function feedsRouter(deps: FeedsDeps): Router {
  const router = Router();
  const ingestKey = requireFeedKey(deps.db, { allowSuspended: false, allowHeaderToken: true });

  router.get('/v1/feeds/whoami', requireFeedKey(deps.db, { allowSuspended: true, allowHeaderToken: false }), (_req, res) => {
    const key = feedKeyOf(res);
    res.json({ keyId: key.id, clientName: key.clientName, officeIds: key.officeIds, status: key.status });
  });

  const uploads = uploadSlots({ perKey: deps.uploadsPerKey, total: deps.uploadsTotal, keyOf: (_req, res) => feedKeyOf(res).id });

  router.post('/v1/feeds', ingestKey, uploads, bodyIdleTimeout(deps.feedBodyIdleMs), refuseUnfinishedBodyOnShutdown(deps.shutdown), async (req, res) => {
    const idempotencyKey = idempotencyKeyOf(req);
    const input = await readFeedInput(req, deps.feedMaxBytes);
    const stored = await storeFeed(deps.db, feedKeyOf(res), input, idempotencyKey).finally(() => releaseUploadSlot(res));
    // A repeat is answered as its first feed is: that feed's id, status and result; nothing new is queued.
    if (stored.repeat) res.set('Idempotent-Replayed', 'true');
    answerPush(res, stored.event.id, await queueAndWait(deps, stored, req.log));
  });

  router.get('/v1/feeds/listings/:office/:uniqueId', ingestKey, async (req, res) => {
    const { office, uniqueId } = req.params as { office: string; uniqueId: string };
    // A key reads the full stored record of its own offices' listings only; any other office's
    // listing is as invisible as a missing one.
    const status = feedKeyOf(res).officeIds.includes(office) ? await listingStatus(deps.db, office, uniqueId) : null;
    if (!status) throw notFound(`no listing ${office}/${uniqueId} for this key: none is stored and no recent feed of the office carried it`);
    res.json(status);
  });

  /** A feed of this key's, or 404: another key's feed is as invisible as a missing one. */
  const ownFeed = async (feedId: string, res: Response): Promise<FeedEvent> => {
    const event = isUuid(feedId) ? await getFeedEvent(deps.db, feedId) : null;
    if (!event || event.keyId !== feedKeyOf(res).id) throw notFound(`no feed ${feedId} for this key`);
    return event;
  };

  router.get('/v1/feeds', ingestKey, async (req, res) => {
    const query = assertValidQuery<FeedHistoryQuery>('FeedHistoryQuery', req.query);
    res.json(await keyFeeds(deps.db, feedKeyOf(res).id, query));
  });

  router.get('/v1/feeds/:feedId', ingestKey, async (req, res) => {
    res.json(feedStatusBody(await ownFeed(String(req.params.feedId), res)));
  });

  router.get('/v1/feeds/:feedId/issues', ingestKey, async (req, res) => {
    const query = assertValidQuery<FeedIssueQuery>('FeedIssueQuery', req.query);
    const event = await ownFeed(String(req.params.feedId), res);
    res.json({ feedId: event.id, status: event.status, ...(await feedIssues(deps.db, event.id, query)) });
  });

  return router;
}
