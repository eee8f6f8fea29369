import { readFeedBody } from '../../db/feed-bodies.js';
import { type ClaimedFeed, type FeedEvent, failFeedEvent, finishFeedEvent, getFeedEvent, recordFeedProgress, startFeedEvent } from '../../db/feed-events.js';
import type { Db } from '../../db/knex.js';
import type { NotificationKind } from '../../db/notifications.js';
import type { KeyEndpoint } from '../../db/webhooks.js';
import type { FeedOutcome } from '../../lib/feed-outcome.js';
import type { Logger } from '../../lib/logger.js';
import { decodeUtf8, decodeXmlBytes } from '../../pipeline/decode.js';
import type { BreakerSettings } from '../../pipeline/reconcile.js';
import type { FeedContext } from '../../pipeline/types.js';
import type { JobContext } from '../job-queue.js';
import { type DirectoryRefresher, refreshOrLeaveMarked } from './directory-refresher.js';
import { notifyFeedFailures, notifyFeedGivenUp } from './feed-notifications.js';
import { type IngestionResult, ingestFeed } from './ingest-feed.js';

/**
 * A running feed's progress is written at most this often. Each report is an update of the event
 * (and of the job in Redis) that the feed's next write waits for: one per batch of 500 had made
 * up about 0.8 s of a 50,000-listing first load's 9.
 */
const PROGRESS_EVERY_MS = 1000;

type Progress = { parsed: number; applied: number; invalid: number };

/**
 * Reports at most one progress per PROGRESS_EVERY_MS, the first one PROGRESS_EVERY_MS after the
 * feed started: a feed done sooner, most pushes, reports none (its result has the counts) and
 * spends no write on it. held() is the latest progress not reported, if any (the feed's final
 * counts, for the job: the event has its result).
 */
function progressReporter(send: (progress: Progress) => Promise<void>) {
  let sentAt = Date.now();
  let held: Progress | null = null;
  return {
    async report(progress: Progress): Promise<void> {
      held = progress;
      if (Date.now() - sentAt < PROGRESS_EVERY_MS) return;
      sentAt = Date.now();
      held = null;
      await send(progress);
    },
    held: () => held,
  };
}

/** What the end of a feed done tells onFeedEnded. */
export interface FeedEnded {
  writtenAt: number;
  keyEndpoints: KeyEndpoint[];
}

export interface IngestDeps {
  /** Where the feed is finished, failed and its notifications queued, each committed to disk before it returns. */
  db: Db;
  breaker: BreakerSettings;
  logger: Logger;
  /** Refreshes the directory after feeds, in the background (without it, each feed's job does). */
  directory?: DirectoryRefresher;
  /**
   * Told of every feed that ends (done or given up), for its key's webhooks; never fails. A feed
   * done also tells `ended`: a performance.now() reading taken after its writes had committed, and
   * its key's active endpoints as the statement that finished it read them.
   */
  onFeedEnded?(event: FeedEvent, outcome: FeedOutcome, result: IngestionResult | null, ended?: FeedEnded): Promise<void>;
}

/**
 * The stored chunks in 64 KB views: the parser then works on small strings that die young,
 * instead of megabyte strings that go straight to V8's large-object space.
 */
async function* smallPieces(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const size = 64 * 1024;
  for await (const chunk of chunks) for (let i = 0; i < chunk.length; i += size) yield chunk.subarray(i, i + size);
}

/** The stored body as text: a JSON-carried string is UTF-8; raw bytes are decoded by their declaration. */
async function* bodyText(db: Db, { event, body }: ClaimedFeed): AsyncGenerator<string> {
  const chunks = smallPieces(
    body
      ? (async function* () {
          yield body;
        })()
      : readFeedBody(db, event.id, event.bodyBytes),
  );
  if (event.bodyKind === 'bytes') {
    yield* decodeXmlBytes(chunks);
    return;
  }
  yield* decodeUtf8(chunks);
}

/** What an ingest job returns (BullMQ keeps it with the job; the board shows it). */
export interface FeedJobSummary {
  feedId: string;
  status: 'done' | 'skipped';
  /** What became of the feed (lib/feed-outcome.ts). */
  outcome?: FeedOutcome;
  counts?: IngestionResult['counts'];
  summary?: IngestionResult['summary'];
  reconcile?: string;
  /** The mails queued for the key's alert address (their kinds); the job sends them at once. */
  notified?: NotificationKind[];
}

/**
 * The ingest job: claims the feed event, ingests it, stores the result and queues any failure
 * notification. Safe to run twice: a finished event is skipped, and a crashed run is simply run
 * again (every step converges). A failed event is run again (an operator retried it). Throws on
 * infrastructure errors so the queue retries. Progress goes to the event (GET /v1/feeds/{id}) and
 * to the job.
 */
export async function processFeed(deps: IngestDeps, feedId: string, job?: Pick<JobContext, 'progress'>): Promise<FeedJobSummary> {
  // The feed's own writes commit without waiting for the disk; finishing it (on deps.db) waits,
  // and so makes all of them durable before anyone is told the feed is done.
  const work = deps.db.asyncCommit();
  const claimed = await startFeedEvent(work, feedId);
  if (!claimed) {
    deps.logger.info({ feedId }, 'feed already finished or unknown; nothing to do');
    return { feedId, status: 'skipped' };
  }
  const { event } = claimed;
  const started = Date.now();
  const reporter = progressReporter(async (progress) => {
    await recordFeedProgress(work, feedId, progress);
    await job?.progress({ ...progress });
  });
  const { result, changedOffices } = await ingestFeed(work, deps.breaker, {
    feedId,
    format: event.format,
    source: bodyText(work, claimed),
    context: event.context as unknown as FeedContext,
    mode: event.mode,
    officeScope: event.officeScope,
    onProgress: (progress) => reporter.report(progress),
  });
  // The result is stored and announced with the changed offices marked stale in the directory;
  // their refresh, which reads every public listing of each, follows the answer: in the background
  // when the process has a refresher, else here.
  const writtenAt = performance.now();
  const { outcome, keyEndpoints } = await finishFeedEvent(deps.db, feedId, result as unknown as Record<string, unknown>, changedOffices);
  if (deps.directory) deps.directory.request(changedOffices);
  else await refreshOrLeaveMarked(work, deps.logger, changedOffices, { feedId });
  // The job's final counts once the feed is announced done: the answer does not wait for them.
  const unreported = reporter.held();
  if (unreported) await job?.progress({ ...unreported });
  const notified = await notifyFeedFailures(deps.db, event, result);
  await deps.onFeedEnded?.(event, outcome, result, { writtenAt, keyEndpoints });
  deps.logger.info(
    { feedId, ms: Date.now() - started, counts: result.counts, summary: result.summary, reconcile: result.reconcile?.status, notified },
    'feed ingested',
  );
  return { feedId, status: 'done', outcome, counts: result.counts, summary: result.summary, reconcile: result.reconcile?.status, notified };
}

/**
 * Called when the queue gives up on a feed: the event says so (a plain sentence for the
 * integrator; the cause for operators and the log) instead of staying queued, and the key's alert
 * address is told. Should the database itself be away, this fails too and the event stays running:
 * the sweep re-queues it once it has been untouched for a while.
 */
export async function giveUpFeed(deps: IngestDeps, feedId: string, err: Error): Promise<void> {
  deps.logger.error({ feedId, err }, 'feed ingestion failed permanently');
  const plain = 'ingestion failed after several attempts because of a problem on our side; the feed is kept, an operator has been told and can run it again';
  if (!(await failFeedEvent(deps.db, feedId, 'failed', plain, err.stack ?? err.message))) return;
  const event = await getFeedEvent(deps.db, feedId);
  if (event) {
    await notifyFeedGivenUp(deps.db, event);
    await deps.onFeedEnded?.(event, 'failed', null);
  }
}
