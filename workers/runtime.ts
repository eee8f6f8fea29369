import { getFeedEvent, staleFeedEventIds } from '../db/feed-events.js';
import type { Db } from '../db/knex.js';
import { sendPendingNotifications } from '../db/notifications.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { createMailer } from '../lib/mailer.js';
import { createBullQueue, startBullWorker } from './bullmq-queue.js';
import { InProcessQueue } from './in-process-queue.js';
import { giveUpFeed, processFeed } from './ingest/process-feed.js';
import { INGEST_RETRY, type JobQueue } from './job-queue.js';

export const INGEST_QUEUE = 'ingest';

/** A queued or running feed untouched this long lost its job (a crash between commit and enqueue, or a restart). */
const STALE_FEED_MS = 5 * 60_000;
const SWEEP_MS = 60_000;

export type RuntimeConfig = Pick<Config, 'redisUrl' | 'smtpUrl' | 'dataDir' | 'mailFrom' | 'circuitBreakerRatio' | 'circuitBreakerMin'>;

export interface Runtime {
  /** Where the web side adds ingest jobs. */
  ingestQueue: JobQueue;
  /** Runs one sweep now: lost feeds re-queued, pending notifications sent (tests and the timer call it). */
  sweep(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The worker side of the service. With REDIS_URL: BullMQ consumers (and a fail-fast producer);
 * without it: the in-process queue, calling the same handlers. Either way a periodic sweep
 * re-queues feeds whose job was lost and sends the notification outbox.
 */
export interface RuntimeOptions {
  /** Run the consumers in this process. */
  consume: boolean;
  /** Redis key prefix of the queues (BullMQ's default 'bull'; tests isolate themselves with their own). */
  queuePrefix?: string;
}

export function startRuntime(config: RuntimeConfig, logger: Logger, db: Db, options: RuntimeOptions = { consume: true }): Runtime {
  const mailer = createMailer({ smtpUrl: config.smtpUrl, dataDir: config.dataDir, from: config.mailFrom });
  const deps = { db, breaker: { ratio: config.circuitBreakerRatio, min: config.circuitBreakerMin }, logger };
  const sendMail = () =>
    sendPendingNotifications(db, mailer).catch((err) => {
      logger.warn({ err }, 'sending notifications failed; will retry');
      return { sent: 0, failed: 0 };
    });
  const handleFeed = async (feedId: string) => {
    await processFeed(deps, feedId);
    await sendMail();
  };
  const giveUp = (feedId: string, err: Error) => giveUpFeed(deps, feedId, err);

  let ingestQueue: JobQueue;
  let consumer: { close(): Promise<void> } | null = null;
  if (config.redisUrl) {
    ingestQueue = createBullQueue(INGEST_QUEUE, config.redisUrl, INGEST_RETRY, logger, options.queuePrefix);
    if (options.consume) consumer = startBullWorker(INGEST_QUEUE, config.redisUrl, handleFeed, { concurrency: 2, logger, onGiveUp: giveUp, prefix: options.queuePrefix });
  } else {
    ingestQueue = new InProcessQueue(handleFeed, {
      ...INGEST_RETRY,
      concurrency: 1,
      onGiveUp: giveUp,
      onError: (feedId, err) => logger.warn({ feedId, err }, 'ingest attempt failed'),
    });
  }

  // In-process jobs die with the process, so at start every unfinished feed is lost; with Redis
  // they survive, and only long-untouched ones are.
  let staleAfterMs = config.redisUrl ? STALE_FEED_MS : 0;
  const sweep = async () => {
    if (!options.consume) return;
    const ids = await staleFeedEventIds(db, staleAfterMs);
    staleAfterMs = STALE_FEED_MS;
    for (const id of ids) {
      const event = await getFeedEvent(db, id);
      logger.warn({ feedId: id, status: event?.status }, 're-queueing a feed whose job was lost');
      await ingestQueue.add(id);
    }
    await sendMail();
  };
  const runSweep = () => sweep().catch((err) => logger.warn({ err }, 'sweep failed; will retry'));
  const timer = options.consume ? setInterval(runSweep, SWEEP_MS) : null;
  timer?.unref();
  if (options.consume) void runSweep();

  return {
    ingestQueue,
    sweep,
    async close() {
      if (timer) clearInterval(timer);
      await consumer?.close();
      await ingestQueue.close();
      mailer.close();
    },
  };
}
