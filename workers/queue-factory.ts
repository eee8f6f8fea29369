import type { Logger } from '../lib/logger.js';
import { InProcessQueue } from './in-process-queue.js';
import type { JobHandler, JobQueue, RetryPolicy } from './job-queue.js';

type Bull = typeof import('./bullmq-queue.js');

/** A queue's handler and how it runs: retries, how many at a time, and what is done when its retries are spent. */
export interface QueueSpec {
  name: string;
  handler: JobHandler;
  retry: RetryPolicy;
  concurrency: number;
  onGiveUp: (id: string, err: Error) => Promise<void>;
}

/**
 * Makes the runtime's queues: BullMQ with a Redis URL (its consumer started only where this process
 * consumes), else an in-process queue calling the same handler. `close` stops the consumers; each
 * queue closes itself.
 */
export function queueFactory(
  bull: Bull | null,
  options: { redisUrl: string | null; consume: boolean; queuePrefix?: string },
  logger: Logger,
): { make(spec: QueueSpec): JobQueue; closeConsumers(): Promise<void> } {
  const consumers: { close(): Promise<void> }[] = [];
  return {
    make({ name, handler, retry, concurrency, onGiveUp }) {
      if (bull && options.redisUrl) {
        if (options.consume)
          consumers.push(bull.startBullWorker(name, options.redisUrl, handler, { concurrency, logger, onGiveUp, prefix: options.queuePrefix }));
        return bull.createBullQueue(name, options.redisUrl, retry, logger, options.queuePrefix);
      }
      return new InProcessQueue(handler, {
        ...retry,
        concurrency,
        onGiveUp,
        onError: (id, err) => logger.warn({ queue: name, id, err: err.message }, 'job attempt failed'),
      });
    },
    async closeConsumers() {
      await Promise.all(consumers.map((c) => c.close()));
    },
  };
}
