import { staleFeedEventIds } from '../db/feed-events.js';
import type { Db } from '../db/knex.js';
import { purgeLeads, stalePendingLeads } from '../db/leads.js';
import { sendPendingNotifications } from '../db/notifications.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { createMailer } from '../lib/mailer.js';
import { createBullQueue, startBullWorker } from './bullmq-queue.js';
import { InProcessQueue } from './in-process-queue.js';
import { giveUpFeed, processFeed } from './ingest/process-feed.js';
import { INGEST_RETRY, LEAD_RETRY, type JobContext, type JobQueue, type JobHandler, type RetryPolicy } from './job-queue.js';
import { deliverLead, giveUpLead } from './leads/deliver-lead.js';

export const INGEST_QUEUE = 'ingest';
export const LEAD_QUEUE = 'lead-delivery';

/** A queued or running feed untouched this long lost its job (a crash between commit and enqueue, or a restart). */
const STALE_FEED_MS = 5 * 60_000;
/** A pending lead untouched this long lost its job (the queue was away when it was accepted). */
const STALE_LEAD_MS = 60_000;
const SWEEP_MS = 60_000;

export type RuntimeConfig = Pick<Config, 'redisUrl' | 'smtpUrl' | 'dataDir' | 'mailFrom' | 'circuitBreakerRatio' | 'circuitBreakerMin' | 'leadRetentionDays'>;

export interface Runtime {
  /** Where the web side adds ingest jobs. */
  ingestQueue: JobQueue;
  /** Where the web side adds lead deliveries (keys from leadJobKey). */
  leadQueue: JobQueue;
  /** Runs one sweep now: lost feeds and leads re-queued, old leads purged, notifications sent (the timer and tests call it). */
  sweep(): Promise<void>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** Run the consumers in this process. */
  consume: boolean;
  /** Redis key prefix of the queues (BullMQ's default 'bull'; tests isolate themselves with their own). */
  queuePrefix?: string;
  /** The ingest retry policy (default INGEST_RETRY, about 4 minutes; tests give up sooner). */
  ingestRetry?: RetryPolicy;
}

/**
 * The worker side of the service: feed ingest and lead delivery. With REDIS_URL: BullMQ consumers
 * (and fail-fast producers); without it: in-process queues calling the same handlers. Either way
 * a periodic sweep re-queues feeds and leads whose job was lost, purges leads past their
 * retention, and sends the notification outbox.
 */
export function startRuntime(config: RuntimeConfig, logger: Logger, db: Db, options: RuntimeOptions = { consume: true }): Runtime {
  const mailer = createMailer({ smtpUrl: config.smtpUrl, dataDir: config.dataDir, from: config.mailFrom });
  const deps = { db, breaker: { ratio: config.circuitBreakerRatio, min: config.circuitBreakerMin }, logger };
  const sendMail = () =>
    sendPendingNotifications(db, mailer).catch((err) => {
      logger.warn({ err }, 'sending notifications failed; will retry');
      return { sent: 0, failed: 0 };
    });
  const handleFeed = async (feedId: string, job?: JobContext) => {
    const summary = await processFeed(deps, feedId, job);
    await sendMail();
    return summary;
  };
  const giveUp = async (feedId: string, err: Error) => {
    await giveUpFeed(deps, feedId, err);
    await sendMail();
  };

  const consumers: { close(): Promise<void> }[] = [];
  /** One queue: BullMQ with REDIS_URL (consumers only where this process consumes), else in-process. */
  const queue = (name: string, handler: JobHandler, retry: RetryPolicy, concurrency: number, onGiveUp: (id: string, err: Error) => Promise<void>): JobQueue => {
    if (config.redisUrl) {
      if (options.consume) consumers.push(startBullWorker(name, config.redisUrl, handler, { concurrency, logger, onGiveUp, prefix: options.queuePrefix }));
      return createBullQueue(name, config.redisUrl, retry, logger, options.queuePrefix);
    }
    return new InProcessQueue(handler, { ...retry, concurrency, onGiveUp, onError: (id, err) => logger.warn({ queue: name, id, err: err.message }, 'job attempt failed') });
  };
  const ingestQueue = queue(INGEST_QUEUE, handleFeed, options.ingestRetry ?? INGEST_RETRY, config.redisUrl ? 2 : 1, giveUp);
  const leadDeps = { db, mailer, logger };
  const leadQueue = queue(LEAD_QUEUE, (key) => deliverLead(leadDeps, key), LEAD_RETRY, 4, (key, err) => giveUpLead(leadDeps, key, err));

  // In-process jobs die with the process, so at start every unfinished feed is lost; with Redis
  // they survive, and only long-untouched ones are.
  let staleAfterMs = config.redisUrl ? STALE_FEED_MS : 0;
  let leadsStaleAfterMs = config.redisUrl ? STALE_LEAD_MS : 0;
  const sweep = async () => {
    if (!options.consume) return;
    const ids = await staleFeedEventIds(db, staleAfterMs);
    staleAfterMs = STALE_FEED_MS;
    for (const id of ids) {
      logger.warn({ feedId: id }, 're-queueing a feed whose job was lost');
      await ingestQueue.requeue(id);
    }
    for (const key of await stalePendingLeads(db, leadsStaleAfterMs)) await leadQueue.add(key);
    leadsStaleAfterMs = STALE_LEAD_MS;
    const purged = await purgeLeads(db, config.leadRetentionDays);
    if (purged) logger.info({ purged }, 'leads past their retention purged');
    await sendMail();
  };
  const runSweep = () => sweep().catch((err) => logger.warn({ err }, 'sweep failed; will retry'));
  const timer = options.consume ? setInterval(runSweep, SWEEP_MS) : null;
  timer?.unref();
  if (options.consume) void runSweep();

  return {
    ingestQueue,
    leadQueue,
    sweep,
    async close() {
      if (timer) clearInterval(timer);
      await Promise.all(consumers.map((c) => c.close()));
      await Promise.all([ingestQueue.close(), leadQueue.close()]);
      mailer.close();
    },
  };
}
