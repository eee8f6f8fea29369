import type { Server } from 'node:http';
import express, { type Express, type RequestHandler, type Router } from 'express';
import type { Redis } from 'ioredis';
import type { Db } from '../db/knex.js';
import type { RefusalCounter } from '../db/lead-refusals.js';
import type { ReplicaReads } from '../db/read-replica.js';
import { type FxProvider, staticFx } from '../lib/fx-rates.js';
import type { Logger } from '../lib/logger.js';
import { createMetrics, type Metrics, queueDepthGauge, replicaGauges } from '../lib/metrics.js';
import { asRequestWork } from '../lib/work-kind.js';
import type { JobQueue } from '../workers/job-queue.js';
import { requireOperator } from './auth/operator.js';
import { answerClientErrors } from './client-errors.js';
import { linkTo, refuseInvalidHost } from './links.js';
import { errorHandler, notFoundHandler } from './middleware/error-handler.js';
import { httpMetrics } from './middleware/http-metrics.js';
import { methodNotAllowed } from './middleware/method-not-allowed.js';
import { addressLimit } from './middleware/rate-limit.js';
import { refuseNulInUrl } from './middleware/refuse-nul.js';
import { requestLogger } from './middleware/request-logger.js';
import { sameOriginWrites } from './middleware/same-origin-writes.js';
import { enquiryCors, PUBLIC_CORS_PATHS, publicCors, securityHeaders } from './middleware/security-headers.js';
import { buildOpenApi } from './openapi.js';
import { odataErrors, RESO_ROOT } from './reso/odata-request.js';
import type { AppConfig, LimitFactory, RouteDeps } from './route-deps.js';
import { adminRouter, guardedRouter, type RouteSpec, routerOf } from './route-registry.js';
import {
  ADMIN_ROUTES,
  ALERT_ROUTES,
  DEVELOPER_KEY_ROUTES,
  FEED_LEAD_ROUTES,
  FEED_ROUTES,
  FX_ROUTES,
  HEALTH_ROUTES,
  KEY_WEBHOOK_ROUTES,
  LEAD_ROUTES,
  METRICS_ROUTES,
  OPENAPI_ROUTES,
  OPERATOR_SESSION_ROUTES,
  PROJECT_ROUTES,
  PUBLIC_READ_ROUTES,
  SITE_ROUTES,
  VALIDATE_ROUTES,
} from './route-table.js';
import { alertPagesRouter } from './routes/alert-pages.js';
import { consolePageRouter } from './routes/console-page.js';
import { developerPageRouter } from './routes/developer-page.js';
import { docsRouter } from './routes/docs.js';
import { guidesRouter } from './routes/guides.js';
import { homePageRouter } from './routes/home-page.js';
import { resoRouter } from './routes/reso.js';

export interface AppDeps {
  config: AppConfig;
  logger: Logger;
  db: Db;
  /** The pool for anonymous public reads (createReadDb); default db. */
  readDb?: Db;
  /** The read replica public reads use while it answers (DATABASE_READ_URL): shown by readiness and /metrics. */
  readReplica?: Pick<ReplicaReads, 'state'>;
  ingestQueue: JobQueue;
  leadQueue: JobQueue;
  /** Shared store for rate limits (REDIS_URL); null keeps counts in this process. */
  redis?: Redis | null;
  /** Key prefix of the rate-limit counters in Redis (tests isolate themselves). */
  rateLimitPrefix?: string;
  /** FX rates for GET /v1/fx (default: the bundled snapshot). */
  fx?: FxProvider;
  /** The embedded process's local command token (npm run key:create reaches the running service with it). */
  localOperatorToken?: string | null;
  /**
   * Bull Board for the BullMQ queues (api/queue-board.ts; REDIS_URL only), served at /admin/queues
   * behind the operator's sign-in. Made by the caller, so that a process without Redis never loads it.
   */
  queueBoard?: RequestHandler;
  isShuttingDown?: () => boolean;
  /** Aborted when the process begins to shut down: requests waiting on a feed answer 202 at once. */
  shutdown?: AbortSignal;
  /** Where webhook deliveries are queued (absent: the sweep sends them). */
  webhookQueue?: JobQueue;
  /** This process's metrics (default: a registry of the app's own). */
  metrics?: Metrics;
  /** Counts enquiries refused before they became leads (absent: not counted). */
  refusals?: RefusalCounter;
}

/** What every router is made from (api/route-deps.ts), made once from the app's dependencies. */
function routeDepsOf(deps: AppDeps): RouteDeps {
  const { config, db } = deps;
  /** A per-address limit (per hour unless windowMs says otherwise), its counts shared through Redis when configured. */
  const limit: LimitFactory = (name, allowance, options = {}) =>
    addressLimit({ name, allowance, redis: deps.redis ?? null, prefix: deps.rateLimitPrefix, logger: deps.logger, ...options });
  const operators = { operatorToken: config.operatorToken, localToken: deps.localOperatorToken ?? null };
  return {
    config,
    logger: deps.logger,
    db,
    // Public reads use their own pool where there is one (short statement timeout, bounded size).
    readDb: deps.readDb ?? db,
    ingestQueue: deps.ingestQueue,
    leadQueue: deps.leadQueue,
    webhookQueue: deps.webhookQueue,
    links: linkTo(config.publicBaseUrl),
    limit,
    metrics: deps.metrics ?? createMetrics(),
    fx: deps.fx ?? staticFx(),
    refusals: deps.refusals,
    redis: deps.redis ?? null,
    shutdown: deps.shutdown,
    operators,
    operator: requireOperator(operators, db),
    // Built once: served by the docs, and the source of the 405 answers' Allow lists.
    apiDocument: buildOpenApi(),
    isShuttingDown: deps.isShuttingDown ?? (() => false),
    readReplica: deps.readReplica,
  };
}

/**
 * What answers a request after the health routes, in the order Express tries them: a family of
 * registered routes, or a router made from the dependencies. The busiest routes come first.
 */
const MOUNTS: readonly (readonly RouteSpec[] | ((routes: RouteDeps) => Router))[] = [
  PUBLIC_READ_ROUTES,
  PROJECT_ROUTES,
  resoRouter,
  FX_ROUTES,
  SITE_ROUTES,
  OPENAPI_ROUTES,
  docsRouter,
  developerPageRouter,
  consolePageRouter,
  guidesRouter,
  homePageRouter,
  VALIDATE_ROUTES,
  // Before the feed routes: GET /v1/feeds/stats is a concrete path beside GET /v1/feeds/{feedId}.
  FEED_LEAD_ROUTES,
  FEED_ROUTES,
  (routes) => guardedRouter('/v1/webhooks', 'feedKeyOrHeader', KEY_WEBHOOK_ROUTES, routes),
  DEVELOPER_KEY_ROUTES,
  LEAD_ROUTES,
  ALERT_ROUTES,
  alertPagesRouter,
  METRICS_ROUTES,
  // Every /v1/admin route, behind the operator check the router itself carries.
  (routes) => adminRouter(ADMIN_ROUTES, routes),
  OPERATOR_SESSION_ROUTES,
];

/** The Express app without listen(), so tests and every process role build it the same way. */
export function createApp(deps: AppDeps): Express {
  const { config, db } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // Responses are dynamic; hashing every body for an ETag costs more than conditional requests save.
  app.set('etag', false);
  // Behind a proxy (TRUST_PROXY), the client's address and scheme come from X-Forwarded-For and -Proto.
  if (config.trustProxy !== null) app.set('trust proxy', config.trustProxy);
  const routes = routeDepsOf(deps);
  const { metrics } = routes;
  queueDepthGauge(metrics, [
    { name: 'ingest', counts: () => deps.ingestQueue.counts() },
    { name: 'lead-delivery', counts: () => deps.leadQueue.counts() },
  ]);
  // Everything a request runs is its own work: on the embedded database its statements go first
  // (db/query-turns.ts). PostgreSQL's pools have no turns, so nothing there reads the mark.
  if (db.embedded) app.use((_req, _res, next) => asRequestWork(next));
  app.use(requestLogger(app, deps.logger));
  app.use(httpMetrics(metrics));
  app.use(securityHeaders());
  app.use(PUBLIC_CORS_PATHS, publicCors(config.corsOrigins));
  app.use(enquiryCors(config.corsOrigins));
  app.use(refuseInvalidHost);
  app.use(refuseNulInUrl);
  app.use(routerOf(HEALTH_ROUTES, routes));
  if (deps.readReplica) replicaGauges(metrics, deps.readReplica);
  for (const mount of MOUNTS) app.use(typeof mount === 'function' ? mount(routes) : routerOf(mount, routes));
  if (deps.queueBoard) {
    const signIn = requireOperator(routes.operators, db, { session: true, signIn: '/console?next=queues' });
    app.use('/admin/queues', signIn, sameOriginWrites(config.publicBaseUrl), deps.queueBoard);
  }
  app.use(methodNotAllowed(routes.apiDocument.paths as Record<string, Record<string, unknown>>));
  app.use(notFoundHandler);
  // Errors raised before the RESO router (a bad Host header, a NUL in the URL) in OData's form there too.
  app.use(RESO_ROOT, odataErrors);
  app.use(errorHandler);
  // Every server the app listens on answers what Node's parser refuses with an error body too.
  const listen = app.listen.bind(app) as (...args: unknown[]) => Server;
  app.listen = ((...args: unknown[]) => {
    const server = listen(...args);
    answerClientErrors(server);
    return server;
  }) as Express['listen'];
  return app;
}
