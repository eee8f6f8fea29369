import { alertMailContent } from '../db/alert-mails.js';
import { isBlocked } from '../db/blocklist.js';
import type { Db } from '../db/knex.js';
import { type RenderAtSend, sendPendingNotifications } from '../db/notifications.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { createMailer } from '../lib/mailer.js';
import type { Metrics } from '../lib/metrics.js';
import { alertLinks, alertMail } from './alerts/alert-mail.js';
import { runAlerts } from './alerts/match-alerts.js';
import { ChangeSequencer } from './change-log/change-sequencer.js';
import { InProcessQueue } from './in-process-queue.js';
import { DirectoryRefresher } from './ingest/directory-refresher.js';
import { giveUpFeed, type IngestDeps, processFeed } from './ingest/process-feed.js';
import {
  INGEST_QUEUE,
  INGEST_RETRY,
  type JobContext,
  type JobHandler,
  type JobQueue,
  type JobQueues,
  LEAD_QUEUE,
  LEAD_RETRY,
  MAINTENANCE_QUEUE,
  type RetryPolicy,
  WEBHOOK_JOB_RETRY,
  WEBHOOK_QUEUE,
} from './job-queue.js';
import { deliverLead, giveUpLead } from './leads/deliver-lead.js';
import { maintenanceTasks, STALE_DIRECTORY_MS, STALE_FEED_MS, STALE_LEAD_MS } from './maintenance.js';
import { dispatchChangeWebhooks } from './webhooks/change-webhooks.js';
import { sendLaneTurn } from './webhooks/endpoint-lane.js';
import { feedWebhookEvents, queueWebhookEvents } from './webhooks/webhook-events.js';

/** How long after the runtime starts the change log's numbering and the first sweep begin. */
const FIRST_WORK_DELAY_MS = 1000;

export type RuntimeConfig = Pick<
  Config,
  | 'redisUrl'
  | 'smtpUrl'
  | 'dataDir'
  | 'mailFrom'
  | 'circuitBreakerRatio'
  | 'circuitBreakerMin'
  | 'leadRetentionDays'
  | 'feedBodyRetentionDays'
  | 'changeLogDays'
  | 'webhookAllowPrivateNetworks'
  | 'webhookTimeoutMs'
  | 'webhookDisableAfterHours'
  | 'port'
  | 'publicBaseUrl'
  | 'alertListingUrl'
>;

/** How long an instant alert's first match waits for the rest of its feed's changes before its mail is composed. */
export const ALERT_HOLD_MS = 20_000;

export interface Runtime extends JobQueues {
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
  /** Runs every periodic task this often instead of its own interval (tests). */
  maintenanceEveryMs?: number;
  /** Where jobs count feeds, listings and lead deliveries (the process's metrics). */
  metrics?: Metrics;
  /** How long instant alerts wait to gather a feed's changes (default ALERT_HOLD_MS; tests 0). */
  alertHoldMs?: number;
}

/**
 * The worker side of the service: feed ingest and lead delivery. With REDIS_URL: BullMQ consumers
 * (and fail-fast producers); without it: in-process queues calling the same handlers. Either way
 * periodic tasks (workers/maintenance.ts: BullMQ job schedulers with Redis, timers without)
 * re-queue feeds and leads whose job was lost, purge leads and feed bodies past their
 * retention, and sends the notification outbox.
 */
export async function startRuntime(config: RuntimeConfig, logger: Logger, db: Db, options: RuntimeOptions = { consume: true }): Promise<Runtime> {
  // BullMQ and ioredis (about 400 modules, 0.2-0.4 s of a start) are loaded only when they are used.
  const bull = config.redisUrl ? await import('./bullmq-queue.js') : null;
  const mailer = createMailer({ smtpUrl: config.smtpUrl, dataDir: config.dataDir, from: config.mailFrom });
  // Alert mails are written as they go (their listings as they are then), with links to this service's pages.
  const links = alertLinks(config);
  const renderAlert: RenderAtSend = async (trx, row) => {
    const content = row.subscription_id ? await alertMailContent(trx, row.id, row.subscription_id) : null;
    if (!content || (await isBlocked(trx, content.subscription.email))) return null;
    return alertMail(content, links, config.leadRetentionDays);
  };
  const sendMail = () =>
    sendPendingNotifications(db, mailer, 100, renderAlert).catch((err) => {
      logger.warn({ err }, 'sending notifications failed; will retry');
      return { sent: 0, failed: 0 };
    });
  /** The change log's matches for saved searches, and the alert mails due (sent at once). Never fails the caller. */
  const alerts = () =>
    runAlerts(db, options.alertHoldMs ?? ALERT_HOLD_MS)
      .then(async (turn) => {
        if (turn.mails) await sendMail();
        return turn;
      })
      .catch((err) => {
        logger.warn({ err }, 'matching alerts failed; the maintenance task tries again');
        return { matched: 0, mails: 0 };
      });
  /**
   * A turn of the alerts after each numbering, off the caller's path (a feed's end does not wait
   * for it): one at a time, and one more when asked during a turn.
   */
  let alertTurn: Promise<void> | null = null;
  let alertAgain = false;
  let closing = false;
  const kickAlerts = () => {
    if (closing) return;
    if (alertTurn) {
      alertAgain = true;
      return;
    }
    alertTurn = (async () => {
      do {
        alertAgain = false;
        await alerts();
      } while (alertAgain && !closing);
    })().finally(() => {
      alertTurn = null;
    });
  };
  /** The change log's listing events into webhook deliveries (never fails the caller: the maintenance task tries again). */
  const dispatchChanges = () =>
    dispatchChangeWebhooks({ db, logger, queue: () => webhookQueue! }).catch((err) => {
      logger.warn({ err }, 'turning the change log into webhooks failed; the maintenance task tries again');
      return 0;
    });
  // The change log's rows are numbered as their transactions commit (notified), and by the maintenance task.
  const sequencer = options.consume
    ? new ChangeSequencer(db, logger, async () => {
        await dispatchChanges();
        kickAlerts();
      })
    : null;
  // The webhook queue is made below; the ingest handler reaches it through this.
  let webhookQueue: JobQueue | null = null;
  const webhookDeps = {
    db,
    logger,
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.webhookAllowPrivateNetworks,
    disableAfterHours: config.webhookDisableAfterHours,
  };
  // The feeds' writes commit without waiting for the disk, and so do their directory refreshes.
  const directory = options.consume ? new DirectoryRefresher(db.asyncCommit(), logger) : undefined;
  const deps: IngestDeps = {
    db,
    directory,
    breaker: { ratio: config.circuitBreakerRatio, min: config.circuitBreakerMin },
    logger,
    onFeedEnded: async (event, outcome, result) => {
      // The feed's listing events (from the change log) first, then its own.
      await sequencer?.run().catch((err) => logger.warn({ err }, 'numbering the change log failed; the maintenance task tries again'));
      await dispatchChanges();
      await queueWebhookEvents({ db, logger, queue: () => webhookQueue! }, event.keyId, event.id, feedWebhookEvents(event, outcome, result));
    },
  };
  const metrics = options.metrics;
  const handleFeed = async (feedId: string, job?: JobContext) => {
    const summary = await processFeed(deps, feedId, job);
    if (metrics && summary.status === 'done') {
      metrics.feeds.inc({ outcome: summary.outcome ?? 'ok' });
      for (const [action, n] of Object.entries(summary.summary ?? {})) metrics.listings.inc({ action }, n);
      if (summary.counts?.invalid) metrics.listings.inc({ action: 'invalid' }, summary.counts.invalid);
    }
    // The outbox is looked at when this feed put mail in it (the maintenance task sends the rest).
    if (summary.notified?.length) await sendMail();
    return summary;
  };
  const giveUp = async (feedId: string, err: Error) => {
    metrics?.feeds.inc({ outcome: 'failed' });
    await giveUpFeed(deps, feedId, err);
    await sendMail();
  };

  const consumers: { close(): Promise<void> }[] = [];
  /** One queue: BullMQ with REDIS_URL (consumers only where this process consumes), else in-process. */
  const queue = (name: string, handler: JobHandler, retry: RetryPolicy, concurrency: number, onGiveUp: (id: string, err: Error) => Promise<void>): JobQueue => {
    if (bull && config.redisUrl) {
      if (options.consume) consumers.push(bull.startBullWorker(name, config.redisUrl, handler, { concurrency, logger, onGiveUp, prefix: options.queuePrefix }));
      return bull.createBullQueue(name, config.redisUrl, retry, logger, options.queuePrefix);
    }
    return new InProcessQueue(handler, {
      ...retry,
      concurrency,
      onGiveUp,
      onError: (id, err) => logger.warn({ queue: name, id, err: err.message }, 'job attempt failed'),
    });
  };
  const ingestQueue = queue(INGEST_QUEUE, handleFeed, options.ingestRetry ?? INGEST_RETRY, config.redisUrl ? 2 : 1, giveUp);
  const leadDeps = { db, mailer, logger };
  const deliver = async (key: string) => {
    try {
      const outcome = await deliverLead(leadDeps, key);
      metrics?.leadDeliveries.inc({ outcome: outcome.status });
      return outcome;
    } catch (err) {
      metrics?.leadDeliveries.inc({ outcome: (err as Error).name === 'UnrecoverableError' ? 'failed' : 'retry' });
      throw err;
    }
  };
  const leadQueue = queue(LEAD_QUEUE, deliver, LEAD_RETRY, 4, (key, err) => giveUpLead(leadDeps, key, err));
  // One job per endpoint with something due (its lane's turn), 4 lanes at a time; the events wait in
  // webhook_deliveries. A job's own retries cover the database being away; a receiver's failures
  // are scheduled on the delivery row (RETRY_SCHEDULE_S) and the lane brought back by the sweep.
  webhookQueue = queue(
    WEBHOOK_QUEUE,
    (id, job) => sendLaneTurn(webhookDeps, id, job),
    WEBHOOK_JOB_RETRY,
    4,
    async (id, err) => {
      logger.warn({ endpointId: id, err: err.message }, 'webhook lane job gave up; the sweep queues the lane again');
    },
  );

  // In-process jobs die with the process, so at start every unfinished feed is lost; with Redis
  // they survive, and only long-untouched ones are.
  let firstSweep = !config.redisUrl;
  const tasks = maintenanceTasks({
    db,
    logger,
    ingestQueue,
    leadQueue,
    webhookQueue,
    leadRetentionDays: config.leadRetentionDays,
    feedBodyRetentionDays: config.feedBodyRetentionDays,
    changeLogDays: config.changeLogDays,
    sequenceChanges: () => sequencer?.run() ?? Promise.resolve(0),
    dispatchChanges,
    sendMail,
    alerts,
    staleAfter: () =>
      firstSweep ? { feedMs: 0, leadMs: 0, directoryMs: 0 } : { feedMs: STALE_FEED_MS, leadMs: STALE_LEAD_MS, directoryMs: STALE_DIRECTORY_MS },
  });
  /** Every task once, in order (at start without Redis, and for tests). */
  const sweep = async () => {
    if (!options.consume) return;
    for (const task of tasks) {
      await task.run();
      // A turn of the event loop between tasks: on the embedded database a task's queries run on
      // this thread one after another without one, and requests and log lines would wait for all ten.
      await new Promise((resolve) => setImmediate(resolve));
    }
    firstSweep = false;
  };
  const timers: NodeJS.Timeout[] = [];
  let scheduled: { close(): Promise<void> } | null = null;
  if (options.consume && bull && config.redisUrl) {
    scheduled = bull.startScheduledTasks(
      MAINTENANCE_QUEUE,
      config.redisUrl,
      tasks.map((t) => ({ ...t, everyMs: options.maintenanceEveryMs ?? t.everyMs })),
      { logger, prefix: options.queuePrefix },
    );
  } else if (options.consume) {
    // The in-process queue keeps its timers: one sweep at once (below: it re-queues what the last run left), then each task on its own.
    for (const task of tasks) {
      const timer = setInterval(
        () => void task.run().catch((err) => logger.warn({ err, task: task.name }, 'periodic task failed; will retry')),
        options.maintenanceEveryMs ?? task.everyMs,
      );
      timer.unref();
      timers.push(timer);
    }
  }

  // The work that starts on the database by itself (the change log's numbering; without Redis, the
  // first sweep) begins a second after the runtime, when the process that starts it has finished
  // starting: on the embedded database every query runs on this thread, and the sweep's queries,
  // begun at once, held up the rest of the start and the server's listening by 0.1-0.7 s, and
  // then the "listening" line's way out (docs/performance.md, Start).
  const begin = setTimeout(() => {
    void sequencer?.start();
    if (options.consume && !config.redisUrl) void sweep().catch((err) => logger.warn({ err }, 'sweep failed; will retry'));
  }, FIRST_WORK_DELAY_MS);
  begin.unref();

  return {
    ingestQueue,
    leadQueue,
    webhookQueue,
    sweep,
    async close() {
      closing = true;
      clearTimeout(begin);
      for (const timer of timers) clearInterval(timer);
      await scheduled?.close();
      await Promise.all(consumers.map((c) => c.close()));
      await Promise.all([ingestQueue.close(), leadQueue.close(), webhookQueue.close()]);
      await directory?.idle();
      await sequencer?.close();
      await alertTurn;
      mailer.close();
    },
  };
}
