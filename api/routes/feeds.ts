import { Router } from 'express';
import { type FeedEvent, failFeedEvent, getFeedEvent, storeFeedEvent } from '../../db/feed-events.js';
import { feedKeyStatus } from '../../db/feed-keys.js';
import type { Db } from '../../db/knex.js';
import { storedListing } from '../../db/listings-store.js';
import { HttpError, notFound, serviceUnavailable } from '../../lib/errors.js';
import type { JobQueue } from '../../workers/job-queue.js';
import { feedKeyOf, requireFeedKey } from '../auth/feed-key.js';
import { readFeedInput } from '../feed-input.js';
import { bodyIdleTimeout } from '../middleware/body-idle-timeout.js';
import { refuseUnfinishedBodyOnShutdown } from '../middleware/unfinished-body.js';
import { releaseUploadSlot, uploadSlots } from '../middleware/upload-slots.js';
import { isUuid } from '../path-params.js';
import { type SpooledBody, spoolBody } from '../spool-body.js';
import { waitForFeed } from '../wait-for-feed.js';

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

export const feedStatusBody = (event: FeedEvent) => ({
  feedId: event.id,
  status: event.status,
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

/** POST /v1/feeds, GET /v1/feeds/whoami, GET /v1/feeds/{feedId} (docs/architecture.md, Ingestion). */
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
    // The whole body is received into a temporary file before the database is touched: a slow
    // sender holds no connection, and memory stays flat whatever the body's size.
    const input = await readFeedInput(req, deps.feedMaxBytes);
    let event: FeedEvent;
    // A JSON-carried string is already in a file (input.release() removes it); raw bytes go to one here.
    let ownSpool: SpooledBody | null = null;
    try {
      const spooled = input.body.kind === 'text' ? input.body.spooled : await spoolBody(input.body.stream);
      if (input.body.kind === 'bytes') ownSpool = spooled;
      // The key is checked again once the body is in: a key revoked during a long upload lands nothing.
      if ((await feedKeyStatus(deps.db, key.id)) !== 'active')
        throw new HttpError(401, 'the feed key was revoked or suspended while the feed was being sent; nothing was stored');
      event = await storeFeedEvent(
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
        spooled.read(),
      );
    } finally {
      await Promise.all([input.release(), ownSpool?.remove()]);
      releaseUploadSlot(res);
    }
    try {
      await deps.ingestQueue.add(event.id);
    } catch (err) {
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
    const accepted = (status: string, extra: Record<string, unknown> = {}) => {
      res
        .status(202)
        .location(statusUrl)
        .json({ feedId: event.id, status, statusUrl, ...extra });
    };
    let finished: FeedEvent | null = null;
    try {
      const status = await waitForFeed(deps.db, event.id, deps.feedSyncWaitMs, deps.shutdown);
      if (status === 'done' || status === 'failed') finished = await getFeedEvent(deps.db, event.id);
      if (!finished) return accepted(status === 'running' ? 'running' : 'queued');
    } catch (err) {
      req.log?.warn({ feedId: event.id, err: (err as Error).message }, 'waiting for a stored feed failed; answered 202');
      return accepted('queued');
    }
    if (finished.status === 'failed') return accepted('failed', { error: finished.error });
    const result = finished.result as { issues: { code: string; message: string }[] };
    const fault = result.issues.find((i) => i.code === 'feed_not_well_formed');
    if (fault) {
      res.status(400).json({ error: `${fault.message}; listings before the fault were applied, nothing was archived (feed ${event.id})` });
      return;
    }
    res.location(statusUrl).json({ feedId: event.id, ...result });
  });

  router.get('/v1/feeds/listings/:office/:uniqueId', ingestKey, async (req, res) => {
    const { office, uniqueId } = req.params as { office: string; uniqueId: string };
    // A key reads the full stored record of its own offices' listings only; any other office's
    // listing is as invisible as a missing one.
    const listing = feedKeyOf(res).officeIds.includes(office) ? await storedListing(deps.db, office, uniqueId) : null;
    if (!listing) throw notFound(`no listing ${office}/${uniqueId} for this key`);
    res.json(listing);
  });

  router.get('/v1/feeds/:feedId', ingestKey, async (req, res) => {
    const feedId = String(req.params.feedId);
    const event = isUuid(feedId) ? await getFeedEvent(deps.db, feedId) : null;
    // Another key's feed is as invisible as a missing one.
    if (!event || event.keyId !== feedKeyOf(res).id) throw notFound(`no feed ${feedId} for this key`);
    res.json(feedStatusBody(event));
  });

  return router;
}
