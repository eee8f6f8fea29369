import type { Db } from '../db/knex.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { createMailer } from '../lib/mailer.js';
import type { Metrics } from '../lib/metrics.js';
import { AlertTurns } from './alerts/alert-turns.js';
import { ALERT_READER } from './alerts/match-alerts.js';
import { ChangeSequencer } from './change-log/change-sequencer.js';
import { feedJobs, leadJobs } from './counted-jobs.js';
import { DirectoryRefresher } from './ingest/directory-refresher.js';
import type { IngestDeps } from './ingest/process-feed.js';
import {
  INGEST_QUEUE,
  INGEST_RETRY,
  type JobQueue,
  type JobQueues,
  LEAD_QUEUE,
  LEAD_RETRY,
  type RetryPolicy,
  WEBHOOK_JOB_RETRY,
  WEBHOOK_QUEUE,
} from './job-queue.js';
import { type MaintenanceTask, maintenanceTasks, STALE_DIRECTORY_MS, STALE_FEED_MS, STALE_LEAD_MS } from './maintenance.js';
import { scheduleMaintenance } from './maintenance-schedule.js';
import { notificationSender } from './notification-sender.js';
import { queueFactory } from './queue-factory.js';
import { dispatchChangeWebhooks, WEBHOOK_READER } from './webhooks/change-webhooks.js';
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
  const sendMail = notificationSender(db, mailer, config, logger);
  const alerts = new AlertTurns(db, options.alertHoldMs ?? ALERT_HOLD_MS, sendMail, logger);
  // The webhook queue is made below; the ingest handler and the change log reach it through this.
  let webhookQueue: JobQueue | null = null;
  const toWebhooks = { db, logger, queue: () => webhookQueue! };
  const { sequencer, dispatchChanges, afterFeed } = changeLogWork(db, logger, toWebhooks, alerts, options.consume);
  // The feeds' writes commit without waiting for the disk, and so do their directory refreshes.
  const directory = options.consume ? new DirectoryRefresher(db.asyncCommit(), logger) : undefined;
  const breaker = { ratio: config.circuitBreakerRatio, min: config.circuitBreakerMin };
  const feeds = feedJobs({ db, directory, breaker, logger, onFeedEnded: afterFeed }, options.metrics, sendMail);
  const leads = leadJobs({ db, mailer, logger }, options.metrics);
  const queues = queueFactory(bull, { redisUrl: config.redisUrl, consume: options.consume, queuePrefix: options.queuePrefix }, logger);
  const ingestQueue = queues.make({
    name: INGEST_QUEUE,
    handler: feeds.handle,
    retry: options.ingestRetry ?? INGEST_RETRY,
    concurrency: config.redisUrl ? 2 : 1,
    onGiveUp: feeds.giveUp,
  });
  const leadQueue = queues.make({ name: LEAD_QUEUE, handler: leads.deliver, retry: LEAD_RETRY, concurrency: 4, onGiveUp: leads.giveUp });
  webhookQueue = webhookLanes(queues, config, db, logger);

  const { tasks, sweep } = maintenanceWork(options.consume, {
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
    alerts: alerts.run,
    // In-process jobs die with the process, so at start every unfinished feed is lost; with Redis
    // they survive, and only long-untouched ones are.
    lostAtStart: !config.redisUrl,
  });
  const schedule = options.consume
    ? scheduleMaintenance(tasks, bull, { redisUrl: config.redisUrl, queuePrefix: options.queuePrefix, everyMs: options.maintenanceEveryMs }, logger)
    : null;

  const begin = afterStart(() => {
    void sequencer?.start();
    if (options.consume && !config.redisUrl) void sweep().catch((err) => logger.warn({ err }, 'sweep failed; will retry'));
  });

  return {
    ingestQueue,
    leadQueue,
    webhookQueue,
    sweep,
    async close() {
      // No alert turn starts from here on; the one under way is awaited before the mailer closes.
      const alertsClosed = alerts.close();
      clearTimeout(begin);
      await schedule?.close();
      await queues.closeConsumers();
      await Promise.all([ingestQueue.close(), leadQueue.close(), webhookQueue.close()]);
      await directory?.idle();
      await sequencer?.close();
      await alertsClosed;
      mailer.close();
    },
  };
}

/**
 * The webhook queue: one job per endpoint with something due (its lane's turn), 4 lanes at a time;
 * the events wait in webhook_deliveries. A job's own retries cover the database being away; a
 * receiver's failures are scheduled on the delivery row (RETRY_SCHEDULE_S) and the lane brought
 * back by the sweep.
 */
function webhookLanes(queues: ReturnType<typeof queueFactory>, config: RuntimeConfig, db: Db, logger: Logger): JobQueue {
  const deps = {
    db,
    logger,
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.webhookAllowPrivateNetworks,
    disableAfterHours: config.webhookDisableAfterHours,
  };
  return queues.make({
    name: WEBHOOK_QUEUE,
    handler: (id, job) => sendLaneTurn(deps, id, job),
    retry: WEBHOOK_JOB_RETRY,
    concurrency: 4,
    onGiveUp: async (id, err) => {
      logger.warn({ endpointId: id, err: err.message }, 'webhook lane job gave up; the sweep queues the lane again');
    },
  });
}

/**
 * The change log's numbering (notified as its transactions commit; only where this process
 * consumes), which lets the webhook and alert readers pass over rows they would make nothing of,
 * and after it the turns of those that would not: the listing events into webhook deliveries, a
 * turn of the alerts. dispatchChanges never fails the caller: the maintenance task tries again.
 */
function changeLogWork(db: Db, logger: Logger, toWebhooks: Parameters<typeof dispatchChangeWebhooks>[0], alerts: AlertTurns, consume: boolean) {
  const dispatchChanges = () =>
    dispatchChangeWebhooks(toWebhooks).catch((err) => {
      logger.warn({ err }, 'turning the change log into webhooks failed; the maintenance task tries again');
      return 0;
    });
  const sequencer = consume
    ? new ChangeSequencer(db, logger, [WEBHOOK_READER, ALERT_READER], async (turns) => {
        if (turns.includes(WEBHOOK_READER.name)) await dispatchChanges();
        if (turns.includes(ALERT_READER.name)) alerts.kick();
      })
    : null;
  /**
   * A feed's end: its listing events (from the change log) first, then its own. A sequencer's run
   * that began after the feed's writes numbers the feed's rows and dispatches them
   * (ChangeSequencer.runSince: the one their notification started, else one of its own); without
   * a sequencer, or when the run fails, they are dispatched here. The feed's own event goes to the
   * endpoints the statement that finished it found.
   */
  const afterFeed: NonNullable<IngestDeps['onFeedEnded']> = async (event, outcome, result, ended) => {
    const sequenced = await sequencer?.runSince(ended?.writtenAt ?? Number.POSITIVE_INFINITY).then(
      () => true,
      (err) => {
        logger.warn({ err }, 'numbering the change log failed; the maintenance task tries again');
        return false;
      },
    );
    if (!sequenced) await dispatchChanges();
    await queueWebhookEvents(toWebhooks, event.keyId, event.id, feedWebhookEvents(event, outcome, result), ended?.keyEndpoints);
  };
  return { sequencer, dispatchChanges, afterFeed };
}

/**
 * The work that starts on the database by itself (the change log's numbering; without Redis, the
 * first sweep) begins a second after the runtime, when the process that starts it has finished
 * starting: on the embedded database every query runs on this thread, and the sweep's queries,
 * begun at once, held up the rest of the start and the server's listening by 0.1-0.7 s, and then
 * the "listening" line's way out (docs/performance.md, Start).
 */
function afterStart(work: () => void): NodeJS.Timeout {
  const timer = setTimeout(work, FIRST_WORK_DELAY_MS);
  timer.unref();
  return timer;
}

/**
 * The periodic tasks, and a sweep that runs every one once, in order (at start without Redis, and
 * for tests; nothing where this process does not consume). lostAtStart: the first sweep takes
 * every unfinished feed, lead and directory refresh as lost, not only long-untouched ones.
 */
function maintenanceWork(
  consume: boolean,
  deps: Omit<Parameters<typeof maintenanceTasks>[0], 'staleAfter'> & { lostAtStart: boolean },
): { tasks: MaintenanceTask[]; sweep(): Promise<void> } {
  let firstSweep = deps.lostAtStart;
  const tasks = maintenanceTasks({
    ...deps,
    staleAfter: () =>
      firstSweep ? { feedMs: 0, leadMs: 0, directoryMs: 0 } : { feedMs: STALE_FEED_MS, leadMs: STALE_LEAD_MS, directoryMs: STALE_DIRECTORY_MS },
  });
  const sweep = async () => {
    if (!consume) return;
    for (const task of tasks) {
      await task.run();
      // A turn of the event loop between tasks: on the embedded database a task's queries run on
      // this thread one after another without one, and requests and log lines would wait for all ten.
      await new Promise((resolve) => setImmediate(resolve));
    }
    firstSweep = false;
  };
  return { tasks, sweep };
}
