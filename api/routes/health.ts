import type { Redis } from 'ioredis';
import { databaseAnswers } from '../../db/health.js';

import { json } from '../openapi-helpers.js';
import type { RouteSpec } from '../route-registry.js';

type Check = 'ok' | 'unavailable';

/** Whether Redis answers PING within timeoutMs. */
async function redisAnswers(redis: Redis, timeoutMs = 1000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([redis.ping().then((pong) => pong === 'PONG'), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Liveness (no dependency checks) and readiness: the database answers, Redis answers when it is
 * configured (feeds, leads and rate limits need it), and the process is not draining. Redis is
 * ready only when the ingest queue's own connection would take a feed now, so readiness and
 * acceptance agree (a second client can reconnect sooner than the queue's). A read replica
 * (DATABASE_READ_URL) is shown with its lag, and its loss does not make the service unready: the
 * public reads go to the primary meanwhile.
 */
export const healthRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    tag: 'system',
    auth: 'none',
    summary: 'Liveness',
    responses: { 200: { description: 'The process answers', content: json('Health') } },
    handle: () => (_req, res) => {
      res.json({ status: 'ok' });
    },
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    tag: 'system',
    auth: 'none',
    summary: 'Readiness: whether the database answers',
    responses: { 200: { description: 'Ready', content: json('Readiness') }, 503: { description: 'Database unavailable', content: json('Readiness') } },
    handle: (deps) => async (_req, res) => {
      const [database, redis] = await Promise.all([
        databaseAnswers(deps.db).then((ok): Check => (ok ? 'ok' : 'unavailable')),
        deps.redis ? Promise.all([redisAnswers(deps.redis), deps.ingestQueue.answers()]).then(([a, b]): Check => (a && b ? 'ok' : 'unavailable')) : null,
      ]);
      const checks = { database, ...(redis ? { redis } : {}), ...(deps.readReplica ? { readReplica: deps.readReplica.state() } : {}) };
      const problem = deps.isShuttingDown()
        ? 'service is shutting down'
        : database !== 'ok'
          ? 'database unavailable'
          : redis === 'unavailable'
            ? 'redis unavailable'
            : null;
      if (!problem) {
        res.json({ status: 'ready', checks });
        return;
      }
      res.status(503).json({ status: 'unavailable', error: problem, checks });
    },
  },
];
