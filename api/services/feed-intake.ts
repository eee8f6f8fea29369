import { FeedKeyNotActiveError } from '../../db/feed-bodies.js';
import { IDEMPOTENCY_WINDOW_HOURS, type StoredPush, storePush } from '../../db/feed-dedupe.js';
import { type FeedEvent, failFeedEvent } from '../../db/feed-events.js';
import type { FeedKey } from '../../db/feed-keys.js';
import type { Db } from '../../db/knex.js';
import { badRequest, HttpError, serviceUnavailable } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import { FeedSyntaxError } from '../../pipeline/feed-syntax-error.js';
import type { JobQueue } from '../../workers/job-queue.js';
import { type FeedInput, refuseTooDeepDocument } from '../feed-input.js';
import { type SpooledBody, spoolBody } from '../spool-body.js';
import { FeedWait } from '../wait-for-feed.js';

/** A feed pushed over the API, stored: its feed event, and whether it repeats an earlier push (its Idempotency-Key). */
export interface StoredFeed {
  event: FeedEvent;
  /** 'replayed': the same request as the key's earlier push, whose feed this is; null: a new feed. */
  repeat: Exclude<StoredPush['repeat'], 'conflict'>;
}

/**
 * Stores a pushed feed: its body received whole into a temporary file first (a slow sender holds
 * no database connection, and memory stays flat whatever its size), a JSON document refused when
 * nested too deep (400, nothing stored), then the feed stored with its idempotency key. The key
 * is checked again as the feed is stored: one revoked or suspended during a long upload lands
 * nothing (401). An Idempotency-Key reused for a different request is a 409. What receiving the
 * body left on disk is removed whatever happens.
 */
export async function storeFeed(db: Db, key: FeedKey, input: FeedInput, idempotencyKey: string | null): Promise<StoredFeed> {
  // A JSON-carried string is already spooled (input.release() removes it); raw bytes are spooled here.
  let ownSpool: SpooledBody | null = null;
  let stored: StoredPush;
  try {
    const spooled = input.body.kind === 'text' ? input.body.spooled : await spoolBody(input.body.stream);
    if (input.body.kind === 'bytes') ownSpool = spooled;
    await refuseTooDeepDocument(input.format, input.body.kind, spooled).catch((err) => {
      throw err instanceof FeedSyntaxError ? badRequest(`${err.message}; nothing was stored`) : err;
    });
    const feed = {
      source: 'api' as const,
      keyId: key.id,
      officeScope: key.officeIds,
      alertEmail: key.alertEmail,
      format: input.format,
      mode: input.mode,
      context: { ...input.context },
      bodyKind: input.body.kind,
    };
    stored = await storePush(db, feed, () => spooled.read(), idempotencyKey);
  } catch (err) {
    if (err instanceof FeedKeyNotActiveError)
      throw new HttpError(401, 'the feed key was revoked or suspended while the feed was being sent; nothing was stored');
    throw err;
  } finally {
    await Promise.all([input.release(), ownSpool?.remove()]);
  }
  const { event, repeat } = stored;
  if (repeat === 'conflict')
    throw new HttpError(
      409,
      `Idempotency-Key "${idempotencyKey}" was used in the last ${IDEMPOTENCY_WINDOW_HOURS} hours for a different request (feed ${event.id}); nothing was stored: send a new feed under a new key`,
    );
  return { event, repeat };
}

/** Where a stored feed stands once the push has waited for it: still to finish, given up, or done with its result. */
export type PushOutcome =
  | { state: 'queued' | 'running' }
  | { state: 'failed'; error: string | null }
  | { state: 'done'; result: { issues: { code: string; message: string }[] } & Record<string, unknown> };

/**
 * On the in-process queue (the embedded default), how long a push waits for its feed to start
 * before it answers 202: past it the queue is behind (pushes arrive faster than this one thread
 * ingests them), and waiting longer would only hold the connection while the feed waits its turn.
 * A second leaves a push sent after another's answer room for that feed's last steps (its change
 * log and webhooks, tens of milliseconds) on a busy machine: pushes one after another get 200.
 * A feed with more than PROMPT_START_PLACES feeds ahead of it is not waited for at all
 * (InProcessQueue.startedWithin). A feed that starts in time is waited for up to
 * FEED_SYNC_WAIT_MS in all, as on PostgreSQL.
 */
export const EMBEDDED_START_WAIT_MS = 1000;

export interface FeedOutcomeDeps {
  db: Db;
  ingestQueue: JobQueue;
  /** How long a push waits for its feed's outcome before answering 202. */
  feedSyncWaitMs: number;
  /** Aborted when the process shuts down: a push waiting for its feed is answered at once. */
  shutdown?: AbortSignal;
}

/**
 * Queues a stored feed (a repeat's feed is not queued again) and waits up to feedSyncWaitMs for its
 * outcome; on the in-process queue only if the feed starts within EMBEDDED_START_WAIT_MS. A feed
 * the queue does not take is marked rejected and the push answered 503 (send it again). Once
 * queued, nothing that happens while waiting makes the push fail: the feed is at worst reported
 * queued, to be polled.
 */
export async function queueAndWait(deps: FeedOutcomeDeps, stored: StoredFeed, log?: Logger): Promise<PushOutcome> {
  const { event, repeat } = stored;
  // A new feed is listened for before it is queued: its announcement cannot be missed, and until
  // then it is as stored (queued), so the wait need not read it. A repeat's feed is read.
  const wait = new FeedWait(event.id);
  const deadline = Date.now() + deps.feedSyncWaitMs;
  try {
    try {
      if (!repeat) await deps.ingestQueue.add(event.id);
    } catch (err) {
      await failFeedEvent(
        deps.db,
        event.id,
        'rejected',
        'the ingest queue was unavailable, so the feed was not accepted; send it again',
        (err as Error).message,
      ).catch(() => undefined);
      log?.warn({ feedId: event.id, err: (err as Error).message }, 'ingest queue unavailable');
      throw serviceUnavailable('the ingest queue is unavailable; the feed was not accepted, send it again shortly');
    }
    const startBy = Math.min(EMBEDDED_START_WAIT_MS, deps.feedSyncWaitMs);
    if (deps.ingestQueue.startedWithin && !(await deps.ingestQueue.startedWithin(event.id, startBy, deps.shutdown))) return { state: 'queued' };
    const seen = await wait
      .wait(deps.db, Math.max(0, deadline - Date.now()), deps.shutdown, repeat ? undefined : { status: 'queued', result: null, error: null })
      .catch((err: Error) => {
        log?.warn({ feedId: event.id, err: err.message }, 'waiting for a stored feed failed; answered 202');
        return null;
      });
    if (seen?.status === 'failed') return { state: 'failed', error: seen.error };
    if (seen?.status === 'done') return { state: 'done', result: seen.result as Extract<PushOutcome, { state: 'done' }>['result'] };
    return { state: seen?.status === 'running' ? 'running' : 'queued' };
  } finally {
    wait.close();
  }
}
