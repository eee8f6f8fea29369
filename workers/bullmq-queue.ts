import { type ConnectionOptions, DelayedError, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../lib/logger.js';
import type { JobHandler, JobPayload, JobQueue, RetryPolicy } from './job-queue.js';

/** BullMQ's own default key prefix; tests give each service its own. */
export const DEFAULT_PREFIX = 'bull';

/** How long an add may take before the caller is told the queue is unavailable. */
const ADD_TIMEOUT_MS = 1000;

/** BullMQ refuses ids with ':' and all-digit ids; feed ids are UUIDs, prefixed to be safe. */
const jobIdOf = (name: string, id: string) => `${name}-${id}`;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    }),
  ]);
}

/**
 * Reconnects within a second of Redis coming back. BullMQ's own default waits up to 20 s between
 * attempts, so a producer could refuse feeds for that long after Redis had returned.
 */
const reconnectWithinASecond = (attempt: number) => Math.min(250 * attempt, 1000);

/**
 * A producer that fails fast: no offline queue and one retry per command, so an HTTP handler
 * learns of a Redis outage within a second instead of hanging, and takes jobs again within a
 * second of Redis returning.
 */
export function createBullQueue(name: string, redisUrl: string, retry: RetryPolicy, logger: Logger, prefix = DEFAULT_PREFIX): JobQueue {
  const connection: ConnectionOptions = {
    url: redisUrl,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: reconnectWithinASecond,
  };
  const queue = new Queue(name, {
    connection,
    prefix,
    defaultJobOptions: {
      attempts: retry.attempts,
      backoff: { type: 'exponential', delay: retry.backoffMs },
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      removeOnFail: { age: 30 * 24 * 3600, count: 10000 },
    },
  });
  queue.on('error', (err) => logger.warn({ err: err.message, queue: name }, 'queue connection error'));
  const add = async (id: string) => {
    await withTimeout(queue.add(name, { id } satisfies JobPayload, { jobId: jobIdOf(name, id) }), ADD_TIMEOUT_MS, 'the job queue (Redis)');
  };
  return {
    add,
    async requeue(id) {
      // BullMQ ignores an add whose id a kept job still holds: a failed or completed one goes first.
      const job = await withTimeout(queue.getJob(jobIdOf(name, id)), ADD_TIMEOUT_MS, 'the job queue (Redis)');
      if (job) {
        const state = await job.getState();
        if (state === 'failed' || state === 'completed') await job.remove();
      }
      await add(id);
    },
    async answers() {
      try {
        // The queue's own ioredis client (BullMQ's type leaves out ping).
        const client = (await withTimeout(queue.getBackend().client, ADD_TIMEOUT_MS, 'the job queue (Redis)')) as unknown as Redis;
        return client.status === 'ready' && (await withTimeout(client.ping(), ADD_TIMEOUT_MS, 'the job queue (Redis)')) === 'PONG';
      } catch {
        return false;
      }
    },
    counts: () => withTimeout(queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed'), ADD_TIMEOUT_MS, 'the job queue (Redis)'),
    close: () => queue.close(),
  };
}

/** A queue handle for Bull Board to inspect and manage. */
export function queueForBoard(name: string, redisUrl: string, prefix = DEFAULT_PREFIX): Queue {
  const queue = new Queue(name, { prefix, connection: { url: redisUrl, enableOfflineQueue: false, maxRetriesPerRequest: 1 } });
  queue.on('error', () => undefined); // the board shows what it can; the producers log Redis trouble
  return queue;
}

/**
 * A consumer: workers need `maxRetriesPerRequest: null` so they ride out Redis restarts. When the
 * last attempt fails, onGiveUp records it durably.
 */
export function startBullWorker(
  name: string,
  redisUrl: string,
  handler: JobHandler,
  options: { concurrency: number; logger: Logger; onGiveUp(id: string, err: Error): Promise<void>; prefix?: string },
): { close(): Promise<void> } {
  const worker = new Worker(
    name,
    async (job, token) => {
      let againMs: number | null = null;
      const result = await handler((job.data as JobPayload).id, {
        progress: (data) => job.updateProgress(data),
        again: (ms) => {
          againMs = ms;
        },
      });
      if (againMs === null) return result;
      // Delayed rather than completed: the same job (and id) runs again, behind the jobs waiting by then.
      await job.moveToDelayed(Date.now() + againMs, token);
      throw new DelayedError();
    },
    {
      prefix: options.prefix ?? DEFAULT_PREFIX,
      connection: { url: redisUrl, maxRetriesPerRequest: null },
      concurrency: options.concurrency,
      // A crashed worker's job is noticed within ~30 s instead of ~60 s; the lock is renewed every
      // 7.5 s, and the ingest job yields to the event loop at least once per MB and per batch.
      lockDuration: 15_000,
      stalledInterval: 15_000,
    },
  );
  worker.on('error', (err) => options.logger.warn({ err: err.message, queue: name }, 'worker connection error'));
  worker.on('failed', (job, err) => {
    if (!job) return;
    const final = job.attemptsMade >= (job.opts.attempts ?? 1);
    options.logger.warn({ queue: name, jobId: job.id, attempt: job.attemptsMade, final, err: err.message }, 'job failed');
    if (final) void options.onGiveUp((job.data as JobPayload).id, err).catch((e) => options.logger.error({ err: e }, 'recording a failed job failed'));
  });
  return { close: () => worker.close() };
}

/**
 * Periodic tasks as BullMQ job schedulers on one queue (upserted by every consuming process: the
 * same id is one scheduler), and a worker that runs them. Each scheduled run is one job, taken by
 * one worker; the board shows every run, its result or failure, and the next one.
 */
export function startScheduledTasks(
  name: string,
  redisUrl: string,
  tasks: { name: string; everyMs: number; run(): Promise<unknown> }[],
  options: { logger: Logger; prefix?: string },
): { close(): Promise<void> } {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  // Like the workers: ride out a Redis restart rather than fail the upserts.
  const connection: ConnectionOptions = { url: redisUrl, maxRetriesPerRequest: null };
  const queue = new Queue(name, { connection, prefix });
  queue.on('error', (err) => options.logger.warn({ err: err.message, queue: name }, 'queue connection error'));
  const byName = new Map(tasks.map((t) => [t.name, t]));
  const ready = Promise.all(
    tasks.map((t) =>
      queue.upsertJobScheduler(
        t.name,
        { every: t.everyMs },
        { name: t.name, data: {}, opts: { removeOnComplete: { count: 200 }, removeOnFail: { count: 500 } } },
      ),
    ),
  ).catch((err) => options.logger.error({ err, queue: name }, 'could not schedule the periodic tasks'));
  const worker = new Worker(
    name,
    async (job) => {
      const task = byName.get(job.name);
      if (!task) throw new Error(`no periodic task named ${job.name}`);
      return task.run();
    },
    { prefix, connection, concurrency: 1 },
  );
  worker.on('error', (err) => options.logger.warn({ err: err.message, queue: name }, 'worker connection error'));
  worker.on('failed', (job, err) =>
    options.logger.warn({ queue: name, task: job?.name, err: err.message }, 'periodic task failed; it runs again at its next time'),
  );
  return {
    async close() {
      await ready;
      await worker.close();
      await queue.close();
    },
  };
}
