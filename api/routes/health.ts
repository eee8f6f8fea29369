import { Router } from 'express';
import { databaseAnswers } from '../../db/health.js';
import type { Db } from '../../db/knex.js';

/** Liveness (no dependency checks) and readiness (the database answers, the process is not draining). */
export function healthRouter(deps: { db: Db; isShuttingDown: () => boolean }): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const database = (await databaseAnswers(deps.db)) ? 'ok' : 'unavailable';
    if (database === 'ok' && !deps.isShuttingDown()) {
      res.json({ status: 'ready', checks: { database } });
      return;
    }
    const error = deps.isShuttingDown() ? 'service is shutting down' : 'database unavailable';
    res.status(503).json({ status: 'unavailable', error, checks: { database } });
  });
  return router;
}
