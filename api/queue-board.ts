import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import type { Express } from 'express';
import type { Logger } from '../lib/logger.js';

/**
 * Bull Board for the BullMQ queues, mounted at /admin/queues behind the operator credential. Its
 * own Express app is told not to announce itself (X-Powered-By), and its API errors are answered
 * `{ "error": ... }` without the queue client's internals: a Redis that is away is a 503.
 */
export function queueBoard(queues: Queue[], logger: Logger) {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath('/admin/queues');
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter });
  serverAdapter.setErrorHandler((err: Error) => {
    const redisAway = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|Connection is closed|MaxRetriesPerRequest|Command timed out|Stream isn't writeable/i.test(err.message);
    if (redisAway) {
      logger.warn({ err: err.message }, 'queue board: Redis unavailable');
      // The adapter sends any status; its type lists only the ones the board itself uses.
      return { status: 503 as 500, body: { error: 'the queue store (Redis) is unavailable; try again shortly' } };
    }
    logger.error({ err }, 'queue board request failed');
    return { status: 500 as const, body: { error: 'internal error' } };
  });
  const app = serverAdapter.getRouter() as Express;
  app.disable('x-powered-by');
  return app;
}
