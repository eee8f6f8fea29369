import { type Request, type Response, Router } from 'express';
import { FeedKeyNotActiveError } from '../../db/feed-bodies.js';
import { IDEMPOTENCY_WINDOW_HOURS, type StoredPush, storePush } from '../../db/feed-dedupe.js';
import { type FeedEvent, failFeedEvent, getFeedEvent } from '../../db/feed-events.js';
import { type FeedHistoryQuery, type FeedIssueQuery, feedIssues, keyFeeds } from '../../db/feed-history.js';
import type { Db } from '../../db/knex.js';
import { listingStatus } from '../../db/listing-status.js';
import { badRequest, HttpError, notFound, serviceUnavailable } from '../../lib/errors.js';
import { FeedSyntaxError } from '../../pipeline/feed-syntax-error.js';
import type { JobQueue } from '../../workers/job-queue.js';
import { feedKeyOf, requireFeedKey } from '../auth/feed-key.js';
import { readFeedInput, refuseTooDeepDocument } from '../feed-input.js';
import { bodyIdleTimeout } from '../middleware/body-idle-timeout.js';
import { refuseUnfinishedBodyOnShutdown } from '../middleware/unfinished-body.js';
import { releaseUploadSlot, uploadSlots } from '../middleware/upload-slots.js';
import { isUuid } from '../path-params.js';
import { type SpooledBody, spoolBody } from '../spool-body.js';
import { assertValidQuery } from '../validators.js';
import { type FeedSeen, FeedWait } from '../wait-for-feed.js';

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
    const key = feedKeyOf(res);
    const idempotencyKey = idempotencyKeyOf(req);
    // The whole body is received into a temporary file before the database is touched: a slow
    // sender holds no connection, and memory stays flat whatever the body's size.
    const input = await readFeedInput(req, deps.feedMaxBytes);
    let event: FeedEvent;
    let repeat: StoredPush['repeat'] = null;
    // A JSON-carried string is already spooled (input.release() removes it); raw bytes are spooled here.
    let ownSpool: SpooledBody | null = null;
    try {
      const spooled = input.body.kind === 'text' ? input.body.spooled : await spoolBody(input.body.stream);
      if (input.body.kind === 'bytes') ownSpool = spooled;
      await refuseTooDeepDocument(input.format, input.body.kind, spooled).catch((err) => {
        throw err instanceof FeedSyntaxError ? badRequest(`${err.message}; nothing was stored`) : err;
      });
      ({ event, repeat } = await storePush(
        deps.db,
        {
          source: 'api',
          keyId: key.id,
          officeScope: key.officeIds,
          alertEmail: key.alertEmail,
          format: input.format,
          mode: input.mode,
          context: { ...input.context },
          bodyKind: input.body.kind,
        },
        () => spooled.read(),
        idempotencyKey,
      ));
    } catch (err) {
      // The key is checked again as the feed is stored: a key revoked during a long upload lands nothing.
      if (err instanceof FeedKeyNotActiveError)
        throw new HttpError(401, 'the feed key was revoked or suspended while the feed was being sent; nothing was stored');
      throw err;
    } finally {
      await Promise.all([input.release(), ownSpool?.remove()]);
      releaseUploadSlot(res);
    }
    if (repeat === 'conflict') {
      throw new HttpError(
        409,
        `Idempotency-Key "${idempotencyKey}" was used in the last ${IDEMPOTENCY_WINDOW_HOURS} hours for a different request (feed ${event.id}); nothing was stored: send a new feed under a new key`,
      );
    }
    // A repeat is answered as its first feed is: that feed's id, status and result; nothing new is queued.
    if (repeat) res.set('Idempotent-Replayed', 'true');
    // A new feed is listened for before it is queued: its announcement cannot be missed, and until
    // then it is as stored (queued), so the wait need not read it. A repeat's feed is read.
    const wait = new FeedWait(event.id);
    try {
      if (!repeat) await deps.ingestQueue.add(event.id);
    } catch (err) {
      wait.close();
      await failFeedEvent(
        deps.db,
        event.id,
        'rejected',
        'the ingest queue was unavailable, so the feed was not accepted; send it again',
        (err as Error).message,
      ).catch(() => undefined);
      req.log?.warn({ feedId: event.id, err: (err as Error).message }, 'ingest queue unavailable');
      throw serviceUnavailable('the ingest queue is unavailable; the feed was not accepted, send it again shortly');
    }
    // From here on the feed is stored and queued: whatever happens while waiting, the client is
    // told where to find the outcome (202), never that nothing was accepted.
    const statusUrl = `/v1/feeds/${event.id}`;
    const accepted = (status: 'queued' | 'running' | 'failed', extra: Record<string, unknown> = {}) => {
      // Still to finish: poll after POLL_AFTER_S. A failed feed changes only when an operator runs it again.
      if (status !== 'failed') res.set('Retry-After', String(POLL_AFTER_S));
      res
        .status(202)
        .location(statusUrl)
        .json({ feedId: event.id, status, statusUrl, ...(status === 'failed' ? {} : { retryAfter: POLL_AFTER_S }), ...extra });
    };
    let finished: FeedSeen | null = null;
    try {
      const seen = await wait.wait(deps.db, deps.feedSyncWaitMs, deps.shutdown, repeat ? undefined : { status: 'queued', result: null, error: null });
      if (seen?.status === 'done' || seen?.status === 'failed') finished = seen;
      if (!finished) return accepted(seen?.status === 'running' ? 'running' : 'queued');
    } catch (err) {
      req.log?.warn({ feedId: event.id, err: (err as Error).message }, 'waiting for a stored feed failed; answered 202');
      return accepted('queued');
    } finally {
      wait.close();
    }
    if (finished.status === 'failed') return accepted('failed', { error: finished.error });
    const result = finished.result as { issues: { code: string; message: string }[] };
    const fault = result.issues.find((i) => i.code === 'feed_not_well_formed');
    if (fault) {
      res
        .status(400)
        .location(statusUrl)
        .json({
          error: `${fault.message}; listings before the fault were applied, nothing was archived (feed ${event.id})`,
          feedId: event.id,
          statusUrl,
        });
      return;
    }
    res.location(statusUrl).json({ feedId: event.id, ...result });
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
