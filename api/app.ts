import type { Server } from 'node:http';
import express, { type Express, type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { Db } from '../db/knex.js';
import type { RefusalCounter } from '../db/lead-refusals.js';
import { createProjectReads } from '../db/project-reads.js';
import { createPublicReads } from '../db/public-reads.js';
import type { ReplicaReads } from '../db/read-replica.js';
import { createResoReads } from '../db/reso-reads.js';
import { type FxProvider, staticFx } from '../lib/fx-rates.js';
import type { Logger } from '../lib/logger.js';
import { createMetrics, type Metrics, queueDepthGauge, replicaGauges } from '../lib/metrics.js';
import { alertLinks } from '../workers/alerts/alert-mail.js';
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
import type { AppConfig, LimitFactory, RouteDeps } from './route-deps.js';
import { adminRouter, guardedRouter, routerOf } from './route-registry.js';
import { ADMIN_ROUTES, DEVELOPER_KEY_ROUTES, FEED_ROUTES, KEY_WEBHOOK_ROUTES, VALIDATE_ROUTES } from './route-table.js';
import { alertPagesRouter } from './routes/alert-pages.js';
import { alertsRouter } from './routes/alerts.js';
import { consolePageRouter } from './routes/console-page.js';
import { developerPageRouter } from './routes/developer-page.js';
import { docsRouter } from './routes/docs.js';
import { feedLeadsRouter } from './routes/feed-leads.js';
import { fxRouter } from './routes/fx.js';
import { guidesRouter } from './routes/guides.js';
import { healthRouter } from './routes/health.js';
import { homePageRouter } from './routes/home-page.js';
import { leadsRouter } from './routes/leads.js';
import { operatorSessionRouter } from './routes/operator-session.js';
import { projectsRouter } from './routes/projects.js';
import { publicReadsRouter } from './routes/public-reads.js';
import { odataErrors, RESO_ROOT, resoRouter } from './routes/reso.js';
import { siteRouter } from './routes/site.js';

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
  const links = linkTo(config.publicBaseUrl);
  const metrics = deps.metrics ?? createMetrics();
  /** A per-address limit (per hour unless windowMs says otherwise), its counts shared through Redis when configured. */
  const limit: LimitFactory = (name, allowance, options = {}) =>
    addressLimit({ name, allowance, redis: deps.redis ?? null, prefix: deps.rateLimitPrefix, logger: deps.logger, ...options });
  const operators = { operatorToken: config.operatorToken, localToken: deps.localOperatorToken ?? null };
  // What every router is made from (api/route-deps.ts).
  const routes: RouteDeps = {
    config,
    logger: deps.logger,
    db,
    readDb: deps.readDb ?? db,
    ingestQueue: deps.ingestQueue,
    leadQueue: deps.leadQueue,
    webhookQueue: deps.webhookQueue,
    links,
    limit,
    metrics,
    fx: deps.fx ?? staticFx(),
    refusals: deps.refusals,
    redis: deps.redis ?? null,
    shutdown: deps.shutdown,
    operators,
    operator: requireOperator(operators, db),
  };
  queueDepthGauge(metrics, [
    { name: 'ingest', counts: () => deps.ingestQueue.counts() },
    { name: 'lead-delivery', counts: () => deps.leadQueue.counts() },
  ]);
  app.use(requestLogger(app, deps.logger));
  app.use(httpMetrics(metrics));
  app.use(securityHeaders());
  app.use(PUBLIC_CORS_PATHS, publicCors(config.corsOrigins));
  app.use(enquiryCors(config.corsOrigins));
  app.use(refuseInvalidHost);
  app.use(refuseNulInUrl);
  app.use(
    healthRouter({
      db,
      redis: deps.redis ?? null,
      ingestQueue: deps.ingestQueue,
      isShuttingDown: deps.isShuttingDown ?? (() => false),
      readReplica: deps.readReplica,
    }),
  );
  if (deps.readReplica) replicaGauges(metrics, deps.readReplica);
  // The busiest routes first.
  // Public reads use their own pool where there is one (short statement timeout, bounded size).
  const readDb = deps.readDb ?? db;
  const pageMaxBytes = config.publicPageMaxBytes;
  // A total or facet count that did not finish is answered as null; the operator hears of it here.
  const onCountError = (err: Error, what: string) => deps.logger.warn({ err: err.message, what }, 'a public count did not finish; answered as null');
  app.use(publicReadsRouter(createPublicReads(readDb, { pageMaxBytes, onCountError, exactTotalMax: config.searchExactTotalMax }), links));
  app.use(projectsRouter(createProjectReads(readDb, { pageMaxBytes })));
  app.use(
    resoRouter(
      createResoReads(readDb, { changeLogDays: config.changeLogDays }),
      links,
      limit('RESO Web API', config.resoRateLimit, {
        windowMs: 60_000,
        refuse: (res, message) => res.set('OData-Version', '4.0').json({ error: { code: 'TooManyRequests', message } }),
      }),
    ),
  );
  app.use(fxRouter(deps.fx ?? staticFx()));
  app.use(siteRouter(readDb));
  // Built once: served by the docs, and the source of the 405 answers' Allow lists.
  const apiDocument = buildOpenApi();
  app.use(docsRouter(apiDocument));
  app.use(developerPageRouter());
  app.use(consolePageRouter());
  app.use(guidesRouter());
  app.use(homePageRouter());
  app.use(routerOf(VALIDATE_ROUTES, routes));
  // Before feedsRouter: GET /v1/feeds/stats is a concrete path beside its /v1/feeds/{feedId}.
  app.use(feedLeadsRouter({ db }));
  app.use(routerOf(FEED_ROUTES, routes));
  app.use(guardedRouter('/v1/webhooks', 'feedKeyOrHeader', KEY_WEBHOOK_ROUTES, routes));
  app.use(routerOf(DEVELOPER_KEY_ROUTES, routes));
  app.use(
    leadsRouter({
      db,
      leadQueue: deps.leadQueue,
      webhookQueue: deps.webhookQueue,
      // A 503 (the service unable to take it) does not use up the sender's allowance.
      limit: limit('lead', config.leadRateLimit, { countUnavailable: false, onRefused: () => deps.refusals?.count('rate_limited') }),
      turnstile: config.turnstileSecret ? { secret: config.turnstileSecret, verifyUrl: config.turnstileVerifyUrl } : null,
      refusals: deps.refusals,
      crmWaitMs: config.leadCrmWaitMs,
    }),
  );
  app.use(
    alertsRouter({
      db,
      limit: limit('alert', config.alertRateLimit, { countUnavailable: false }),
      turnstile: config.turnstileSecret ? { secret: config.turnstileSecret, verifyUrl: config.turnstileVerifyUrl } : null,
      links: alertLinks(config),
      retentionDays: config.leadRetentionDays,
    }),
  );
  app.use(alertPagesRouter({ db, retentionDays: config.leadRetentionDays }));
  app.get('/metrics', requireOperator(operators, db), async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  // Every /v1/admin route, behind the operator check the router itself carries.
  app.use(adminRouter(ADMIN_ROUTES, routes));
  app.use(operatorSessionRouter({ db, operators, publicBaseUrl: config.publicBaseUrl }));
  if (deps.queueBoard) {
    const signIn = requireOperator(operators, db, { session: true, signIn: '/console?next=queues' });
    app.use('/admin/queues', signIn, sameOriginWrites(config.publicBaseUrl), deps.queueBoard);
  }
  app.use(methodNotAllowed(apiDocument.paths as Record<string, Record<string, unknown>>));
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
