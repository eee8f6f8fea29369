import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { Db } from '../db/knex.js';
import type { RefusalCounter } from '../db/lead-refusals.js';
import type { ReplicaReads } from '../db/read-replica.js';
import type { Config } from '../lib/config.js';
import type { FxProvider } from '../lib/fx-rates.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import type { JobQueue } from '../workers/job-queue.js';
import type { OperatorCredentials } from './auth/operator.js';
import type { LinkTo } from './links.js';
import type { RateLimitOptions } from './middleware/rate-limit.js';

/** The settings the app reads. */
export type AppConfig = Pick<
  Config,
  | 'corsOrigins'
  | 'port'
  | 'alertRateLimit'
  | 'alertListingUrl'
  | 'leadRetentionDays'
  | 'publicBaseUrl'
  | 'trustProxy'
  | 'feedMaxBytes'
  | 'feedSyncWaitMs'
  | 'feedBodyIdleMs'
  | 'feedUploadsPerKey'
  | 'feedUploadsTotal'
  | 'validateConcurrency'
  | 'validateWaitMs'
  | 'validateUploadsPerAddress'
  | 'validateUploads'
  | 'validateBodyMaxMs'
  | 'validateMinBytesPerS'
  | 'validateRateLimit'
  | 'validateMaxPreviews'
  | 'validateMaxIssues'
  | 'operatorToken'
  | 'keyRequestRateLimit'
  | 'redisUrl'
  | 'leadRateLimit'
  | 'leadCrmWaitMs'
  | 'resoRateLimit'
  | 'changeLogDays'
  | 'turnstileSecret'
  | 'turnstileVerifyUrl'
  | 'publicPageMaxBytes'
  | 'searchExactTotalMax'
  | 'searchRelevanceCandidates'
  | 'webhookAllowPrivateNetworks'
  | 'webhookTestRateLimit'
>;

/** A per-address rate limit (per hour unless windowMs says otherwise), its counts shared through Redis when configured. */
export type LimitFactory = (
  name: string,
  allowance: number,
  options?: Pick<RateLimitOptions, 'countUnavailable' | 'windowMs' | 'refuse' | 'onRefused' | 'per'>,
) => RequestHandler;

/**
 * What every router and route is made from: one shape, built once by createApp (api/app.ts) from
 * the app's dependencies, so a router takes `RouteDeps` and uses what it needs of it.
 */
export interface RouteDeps {
  config: AppConfig;
  logger: Logger;
  /** The primary: writes, authenticated reads. */
  db: Db;
  /** The pool (or replica) for anonymous public reads. */
  readDb: Db;
  ingestQueue: JobQueue;
  leadQueue: JobQueue;
  /** Where webhook deliveries are queued (absent: the sweep sends them). */
  webhookQueue?: JobQueue;
  /** Links in answers, from PUBLIC_BASE_URL or the Host header. */
  links: LinkTo;
  limit: LimitFactory;
  metrics: Metrics;
  fx: FxProvider;
  refusals?: RefusalCounter;
  redis: Redis | null;
  /** Aborted when the process begins to shut down. */
  shutdown?: AbortSignal;
  /** The credentials an operator may present. */
  operators: OperatorCredentials;
  /** The operator check (api/auth/operator.ts), made once. */
  operator: RequestHandler;
  /** The API description, built once (buildOpenApi): served at /v1/openapi.json and /docs. */
  apiDocument: Record<string, unknown>;
  /** Whether the process is draining (readiness answers 503). */
  isShuttingDown: () => boolean;
  /** The read replica public reads use while it answers (readiness shows it). */
  readReplica?: Pick<ReplicaReads, 'state'>;
}
