/**
 * The queues as every role sees them: their names, what their jobs carry, how often they are
 * tried, and the producer interface. The web and sftp roles import this (and workers/producers.ts)
 * to add jobs without starting any worker; workers/runtime.ts consumes the same queues.
 */

/** Feed ingestion: a job per stored feed event (feed_events.id). */
export const INGEST_QUEUE = 'ingest';
/** Lead delivery: a job per lead (its key, db/leads.ts leadJobKey). */
export const LEAD_QUEUE = 'lead-delivery';
/** Webhook delivery: a job per endpoint with deliveries due (webhook_endpoints.id: one job per lane). */
export const WEBHOOK_QUEUE = 'webhook-delivery';
/** Where the periodic tasks are scheduled (REDIS_URL only; workers/maintenance.ts). */
export const MAINTENANCE_QUEUE = 'maintenance';

/** Every queue, in the order the operator's queue board shows them. */
export const QUEUE_NAMES = [INGEST_QUEUE, LEAD_QUEUE, WEBHOOK_QUEUE, MAINTENANCE_QUEUE] as const;

/**
 * What a job carries: only an id. The data (raw feeds, results, lead contact details, webhook
 * events) lives in PostgreSQL, never in Redis.
 */
export interface JobPayload {
  id: string;
}

/** What the web side needs from a queue: add a job by id (idempotent), and close. */
export interface JobQueue {
  /**
   * Adds the job for new work (a new feed, lead or retry: an id never used); rejects quickly when
   * the queue is unreachable. Nothing is added while a job with this id is waiting or running, nor,
   * with BullMQ, while a finished one is kept (completed ones for a day): work found lost is
   * requeued instead.
   */
  add(id: string): Promise<void>;
  /**
   * Adds the job again even where a finished one (failed or completed) with this id is still
   * kept, which add() would take for the same job: for work found lost (the sweep) or retried
   * by an operator. A job waiting or running is left as it is.
   */
  requeue(id: string): Promise<void>;
  /** Jobs by state, for the operator dashboard. */
  counts(): Promise<Record<string, number>>;
  /** Whether an add would be taken now (readiness says so only when it would). */
  answers(): Promise<boolean>;
  /**
   * The in-process queue only: true once job `id` has started, false if it has not within ms (the
   * queue is behind) or when `stop` aborts. A push on the embedded default waits for its feed only
   * when the feed starts promptly (api/services/feed-intake.ts).
   */
  startedWithin?(id: string, ms: number, stop?: AbortSignal): Promise<boolean>;
  close(): Promise<void>;
}

/** What a running job can tell its queue (BullMQ shows it on the board). */
export interface JobContext {
  progress(data: Record<string, number>): Promise<void>;
  /**
   * Runs this job again after ms (0: at the back of the queue, behind every job waiting now)
   * instead of finishing it, once the handler returns; not counted as a failed attempt. Until then
   * the job is delayed, and adding the same id does nothing (BullMQ: moved to its delayed set).
   */
  again(ms: number): void;
}

/**
 * A failure trying again cannot mend: the job fails at once, without its remaining attempts.
 * BullMQ and the in-process queue both know it by its name (BullMQ's own class of that name need
 * not be loaded for it: the in-process queue runs without BullMQ).
 */
export class UnrecoverableError extends Error {
  override name = 'UnrecoverableError';
}

/** Runs one job; what it returns is the job's return value (BullMQ keeps it with the job). */
export type JobHandler = (id: string, job?: JobContext) => Promise<unknown>;

export interface RetryPolicy {
  attempts: number;
  /** First retry delay; doubled on each further attempt. */
  backoffMs: number;
}

/**
 * Feed ingestion: 8 attempts over about 4 minutes (2 s, 4 s, … 128 s), so a database or Redis
 * outage of a few minutes is ridden out; past that the sweep re-queues the feed.
 */
export const INGEST_RETRY: RetryPolicy = { attempts: 8, backoffMs: 2000 };

/** Lead delivery: 6 attempts over about 2.5 minutes (5 s, 10 s, 20 s, 40 s, 80 s). */
export const LEAD_RETRY: RetryPolicy = { attempts: 6, backoffMs: 5000 };

/** A webhook lane's job: 3 attempts (2 s, 4 s) for the database being away; receivers' failures are scheduled on the delivery. */
export const WEBHOOK_JOB_RETRY: RetryPolicy = { attempts: 3, backoffMs: 2000 };

/** The producers of the three job queues (workers/producers.ts, or the runtime's own). */
export interface JobQueues {
  /** Where the web side adds ingest jobs. */
  ingestQueue: JobQueue;
  /** Where the web side adds lead deliveries (keys from leadJobKey). */
  leadQueue: JobQueue;
  /** Where webhook endpoints with deliveries due are queued (by endpoint id: one job per lane). */
  webhookQueue: JobQueue;
}
