import express, { type Express } from 'express';
import type { Db } from '../db/knex.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { errorHandler, notFoundHandler } from './middleware/error-handler.js';
import { requestLogger } from './middleware/request-logger.js';
import { docsRouter } from './routes/docs.js';
import { healthRouter } from './routes/health.js';
import { validateRouter } from './routes/validate.js';

export interface AppDeps {
  config: Pick<Config, 'feedMaxBytes'>;
  logger: Logger;
  db: Db;
  isShuttingDown?: () => boolean;
}

/** The Express app without listen(), so tests and every process role build it the same way. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(requestLogger(deps.logger));
  app.use(healthRouter({ db: deps.db, isShuttingDown: deps.isShuttingDown ?? (() => false) }));
  app.use(docsRouter());
  app.use(validateRouter({ feedMaxBytes: deps.config.feedMaxBytes }));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
