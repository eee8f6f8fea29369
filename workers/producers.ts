import type { Logger } from '../lib/logger.js';
import { createBullQueue, DEFAULT_PREFIX } from './bullmq-queue.js';
import { INGEST_QUEUE, INGEST_RETRY, type JobQueues, LEAD_QUEUE, LEAD_RETRY, type RetryPolicy, WEBHOOK_JOB_RETRY, WEBHOOK_QUEUE } from './job-queue.js';

export interface ProducerOptions {
  /** Redis key prefix of the queues (BullMQ's default 'bull'; tests isolate themselves with their own). */
  queuePrefix?: string;
  /** The ingest retry policy (default INGEST_RETRY, about 4 minutes; tests give up sooner). */
  ingestRetry?: RetryPolicy;
}

/**
 * The three job queues' producers on Redis, for a role that adds jobs but runs none (the web role
 * with REDIS_URL, the sftp role): fail-fast BullMQ producers with each queue's retry policy, and
 * nothing else started (no mailer, no consumers, no timers).
 */
export function openQueueProducers(redisUrl: string, logger: Logger, options: ProducerOptions = {}): JobQueues & { close(): Promise<void> } {
  const prefix = options.queuePrefix ?? DEFAULT_PREFIX;
  const ingestQueue = createBullQueue(INGEST_QUEUE, redisUrl, options.ingestRetry ?? INGEST_RETRY, logger, prefix);
  const leadQueue = createBullQueue(LEAD_QUEUE, redisUrl, LEAD_RETRY, logger, prefix);
  const webhookQueue = createBullQueue(WEBHOOK_QUEUE, redisUrl, WEBHOOK_JOB_RETRY, logger, prefix);
  return {
    ingestQueue,
    leadQueue,
    webhookQueue,
    async close() {
      await Promise.all([ingestQueue.close(), leadQueue.close(), webhookQueue.close()]);
    },
  };
}
