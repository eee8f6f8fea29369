import { availableParallelism } from 'node:os';
import ipaddr from 'ipaddr.js';
import { createAjv, describeAjvErrors } from './ajv.js';

/** Validated, frozen service configuration. Nothing else in the codebase reads process.env. */
export interface Config {
  port: number;
  /** A port of its own for GET /metrics without a credential (any role); null: only the web role's /metrics, behind the operator credential. */
  metricsPort: number | null;
  /** Origins browsers may call the public reads and POST /v1/leads from: '*' or a list. */
  corsOrigins: '*' | string[];
  databaseUrl: string | null;
  /** A streaming replica of DATABASE_URL for the anonymous public reads; null: they read the primary. */
  databaseReadUrl: string | null;
  /** How long a public read's statement may run on PostgreSQL (its own pool); past it, 503. */
  dbReadTimeoutMs: number;
  /** PostgreSQL: prepared statements each public-read connection keeps (0: none). */
  dbPreparedStatements: number;
  /** The most bytes of records one public page (listings, projects, agents, offices) carries. */
  publicPageMaxBytes: number;
  /** A listing search's total is exact up to this many matches, a lower bound past it. */
  searchExactTotalMax: number;
  dataDir: string;
  /** The embedded database's shared_buffers (PGlite's PostgreSQL setting), e.g. '16MB'; null keeps PostgreSQL's 128MB. */
  embeddedSharedBuffers: string | null;
  redisUrl: string | null;
  /** Prefix of every Redis key the service makes (queues, rate-limit counters); null: BullMQ's `bull` and `rl:`. */
  redisPrefix: string | null;
  operatorToken: string | null;
  smtpUrl: string | null;
  mailFrom: string;
  turnstileSecret: string | null;
  turnstileVerifyUrl: string;
  fxSource: 'static' | 'live';
  fxPrimaryUrl: string;
  fxBackupUrl: string;
  sftpUrl: string | null;
  sftpPrivateKeyPath: string | null;
  sftpHostFingerprint: string | null;
  sftpInsecureAcceptAnyHost: boolean;
  sftpPollMs: number;
  /** The most files of one SFTP office claimed and not yet ingested; a poll claims up to this many of an office less those (docs/sftp.md, Fair claiming). */
  sftpOfficeShare: number;
  /** The most files one SFTP poll claims, across every office. */
  sftpClaimsPerPoll: number;
  circuitBreakerRatio: number;
  circuitBreakerMin: number;
  feedMaxBytes: number;
  feedSyncWaitMs: number;
  feedBodyIdleMs: number;
  /** Feed uploads (POST /v1/feeds bodies being received and stored) at once per key, and in all in this process. */
  feedUploadsPerKey: number;
  feedUploadsTotal: number;
  validateConcurrency: number;
  /** How long a dry run whose body is whole waits for one of those slots before a 503. */
  validateWaitMs: number;
  /** Dry runs admitted at once (receiving, waiting or running), per client address and in all. */
  validateUploadsPerAddress: number;
  validateUploads: number;
  /** A dry run's body must be in within this long, at this average rate after its first 5 s (else 408, slot freed). */
  validateBodyMaxMs: number;
  validateMinBytesPerS: number;
  /** Worker threads that read large REAXML feeds in this process (0: read where they arrive). */
  readThreads: number;
  validateRateLimit: number;
  validateMaxPreviews: number;
  validateMaxIssues: number;
  leadRetentionDays: number;
  /** How long a lead on CRM delivery waits for a CRM's acknowledgement before it is mailed. */
  leadCrmWaitMs: number;
  feedBodyRetentionDays: number;
  leadRateLimit: number;
  /** RESO Web API requests per client address per minute. */
  resoRateLimit: number;
  /** Days the change log keeps its events (RESO EntityEvent, webhooks); an older checkpoint must replicate from scratch. */
  changeLogDays: number;
  keyRequestRateLimit: number;
  /** Webhook endpoints may be on loopback, private and link-local addresses, and plain http (development, an intranet). */
  webhookAllowPrivateNetworks: boolean;
  /** A webhook delivery attempt's time limit, connection to the end of the answer. */
  webhookTimeoutMs: number;
  /** An endpoint failing every delivery this long is disabled and its key's alert address told. */
  webhookDisableAfterHours: number;
  /** Test events (POST /v1/webhooks/{id}/test) one feed key may ask for per hour. */
  webhookTestRateLimit: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * Where the service is reached from outside (scheme, host, optional path prefix, no trailing
   * slash): links in answers are built from it. null: from the request's scheme and Host header.
   */
  publicBaseUrl: string | null;
  /** Express "trust proxy": how many proxies stand in front, or their addresses and subnets; null trusts none. */
  trustProxy: number | string[] | null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** One reading thread per core, at most 8; none on a single core, where they would only take turns with the main thread. */
function defaultReadThreads(): number {
  const cores = availableParallelism();
  return cores > 1 ? Math.min(cores, 8) : 0;
}

/** PUBLIC_BASE_URL as links use it: origin and path prefix, no trailing slash; a URL with more (credentials, query, fragment) is a problem. */
function baseUrl(value: string, problems: string[]): string | null {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    problems.push(`PUBLIC_BASE_URL ${JSON.stringify(value)} is not a URL`);
    return null;
  }
  if (parsed.username || parsed.password || parsed.search || parsed.hash || value.includes('?') || value.includes('#')) {
    problems.push('PUBLIC_BASE_URL must be a scheme, host and optional path only (no credentials, query or fragment), e.g. https://api.example.com');
    return null;
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

/** Names proxy-addr (Express's trust proxy) gives to address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: a number of proxies in front (1 to 10), or a comma-separated list of their
 * addresses, subnets (CIDR) and the names loopback, linklocal and uniquelocal. "true" is refused:
 * it would trust whatever X-Forwarded-For any client sends.
 */
function trustedProxies(value: string, problems: string[]): number | string[] | null {
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops >= 1 && hops <= 10) return hops;
    problems.push(`TRUST_PROXY ${text} must be between 1 and 10 proxies (unset it to trust none)`);
    return null;
  }
  if (/^true$/i.test(text)) {
    problems.push(
      'TRUST_PROXY=true would trust the X-Forwarded-For header of any client, so anyone could choose the address rate limits count; give the number of proxies in front (e.g. 1) or their addresses',
    );
    return null;
  }
  const entries = text.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !PROXY_RANGE_NAMES.has(entry) && !isAddressOrSubnet(entry));
  if (bad.length === 0) return entries;
  problems.push(
    `TRUST_PROXY: ${bad.map((entry) => JSON.stringify(entry)).join(', ')} ${bad.length === 1 ? 'is' : 'are'} not a proxy count, an IP address, a subnet (CIDR) or one of loopback, linklocal, uniquelocal`,
  );
  return null;
}

function isAddressOrSubnet(entry: string): boolean {
  if (!entry.includes('/')) return ipaddr.isValid(entry);
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

const url = (schemes: string[]) => ({ type: 'string', pattern: `^(${schemes.join('|')})://` });
const int = (minimum: number, maximum?: number) => ({ type: 'integer', minimum, ...(maximum === undefined ? {} : { maximum }) });

/** The environment variables (README; docs/architecture.md, Configuration), with their rules and defaults. */
const envSchema = {
  type: 'object',
  properties: {
    PORT: { ...int(0, 65535), default: 3000 },
    METRICS_PORT: int(1, 65535),
    CORS_ORIGINS: { type: 'string', pattern: '^(\\*|https?://[^\\s,/]+(,\\s*https?://[^\\s,/]+)*)$', default: '*' },
    DATABASE_URL: url(['postgres', 'postgresql']),
    DATABASE_READ_URL: url(['postgres', 'postgresql']),
    DATA_DIR: { type: 'string', minLength: 1, default: './data' },
    REDIS_URL: url(['redis', 'rediss']),
    REDIS_PREFIX: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' },
    OPERATOR_TOKEN: { type: 'string', minLength: 16 },
    SMTP_URL: url(['smtp', 'smtps']),
    MAIL_FROM: { type: 'string', pattern: '^[^\\s@<>]+@[^\\s@<>]+$', default: 'no-reply@localhost' },
    TURNSTILE_SECRET: { type: 'string', minLength: 1 },
    TURNSTILE_VERIFY_URL: { ...url(['http', 'https']), default: 'https://challenges.cloudflare.com/turnstile/v0/siteverify' },
    FX_SOURCE: { enum: ['static', 'live'], default: 'static' },
    FX_PRIMARY_URL: { ...url(['http', 'https']), default: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml' },
    FX_BACKUP_URL: { ...url(['http', 'https']), default: 'https://open.er-api.com/v6/latest/EUR' },
    SFTP_URL: url(['sftp']),
    SFTP_PRIVATE_KEY_PATH: { type: 'string', minLength: 1 },
    SFTP_HOST_FINGERPRINT: { type: 'string', pattern: '^SHA256:[A-Za-z0-9+/]{43}=?$' },
    SFTP_INSECURE_ACCEPT_ANY_HOST: { enum: ['0', '1'], default: '0' },
    SFTP_POLL_MS: { ...int(100), default: 15000 },
    SFTP_OFFICE_SHARE: { ...int(1), default: 50 },
    SFTP_CLAIMS_PER_POLL: { ...int(1), default: 100 },
    CIRCUIT_BREAKER_RATIO: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 0.2 },
    CIRCUIT_BREAKER_MIN: { ...int(0), default: 5 },
    DB_READ_TIMEOUT_MS: { ...int(500, 60000), default: 5000 },
    DB_PREPARED_STATEMENTS: { ...int(0, 1000), default: 64 },
    EMBEDDED_SHARED_BUFFERS: { type: 'string', pattern: '^[1-9][0-9]{0,5}(kB|MB|GB)$' },
    PUBLIC_PAGE_MAX_BYTES: { ...int(1024, 256 * 1024 * 1024), default: 4 * 1024 * 1024 },
    SEARCH_EXACT_TOTAL_MAX: { ...int(1, 10_000_000), default: 10_000 },
    FEED_MAX_BYTES: { ...int(1024), default: 100 * 1024 * 1024 },
    FEED_SYNC_WAIT_MS: { ...int(0, 600000), default: 30000 },
    FEED_BODY_IDLE_MS: { ...int(100, 600000), default: 30000 },
    FEED_UPLOADS_PER_KEY: { ...int(1, 1000), default: 4 },
    FEED_UPLOADS_TOTAL: { ...int(1, 10000), default: 32 },
    VALIDATE_CONCURRENCY: { ...int(1, 64), default: 2 },
    VALIDATE_WAIT_MS: { ...int(0, 600000), default: 10000 },
    VALIDATE_UPLOADS_PER_ADDRESS: { ...int(1, 1000), default: 2 },
    VALIDATE_UPLOADS: { ...int(1, 10000), default: 8 },
    VALIDATE_BODY_MAX_MS: { ...int(1000, 3600000), default: 120000 },
    VALIDATE_MIN_BYTES_PER_S: { ...int(1), default: 8192 },
    READ_THREADS: { ...int(0, 64), default: defaultReadThreads() },
    VALIDATE_RATE_LIMIT: { ...int(1), default: 300 },
    VALIDATE_MAX_PREVIEWS: { ...int(0), default: 1000 },
    VALIDATE_MAX_ISSUES: { ...int(1), default: 10000 },
    LEAD_RETENTION_DAYS: { ...int(1), default: 365 },
    LEAD_CRM_WAIT_MS: { ...int(1000, 7 * 24 * 3600 * 1000), default: 15 * 60 * 1000 },
    FEED_BODY_RETENTION_DAYS: { ...int(1), default: 30 },
    LEAD_RATE_LIMIT: { ...int(1), default: 20 },
    RESO_RATE_LIMIT: { ...int(1), default: 600 },
    CHANGE_LOG_DAYS: { ...int(1, 3650), default: 30 },
    KEY_REQUEST_RATE_LIMIT: { ...int(1), default: 10 },
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: { enum: ['0', '1'], default: '0' },
    WEBHOOK_TIMEOUT_MS: { ...int(100, 30000), default: 5000 },
    WEBHOOK_DISABLE_AFTER_HOURS: { type: 'number', exclusiveMinimum: 0, maximum: 720, default: 24 },
    WEBHOOK_TEST_RATE_LIMIT: { ...int(1), default: 30 },
    PUBLIC_BASE_URL: url(['http', 'https']),
    TRUST_PROXY: { type: 'string', minLength: 1 },
    LOG_LEVEL: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
  },
} as const;

const validateEnv = createAjv({ coerceTypes: true }).compile(envSchema);

/** Every environment variable the service reads (the README's configuration table names each: a test checks). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.properties);

/** Reads the variables once, reports every problem together, and returns a frozen Config. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(envSchema.properties)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const problems: string[] = [];
  if (!validateEnv(raw)) {
    problems.push(...describeAjvErrors(validateEnv.errors, 'env').map((p) => p.replace(/^env\./, '')));
  }
  const e = raw as Record<string, any>;
  if (e.DATABASE_READ_URL && !e.DATABASE_URL)
    problems.push('DATABASE_READ_URL is set but DATABASE_URL is not: a read replica replicates a PostgreSQL primary (the embedded database has none)');
  if (e.SFTP_URL && !e.SFTP_HOST_FINGERPRINT && e.SFTP_INSECURE_ACCEPT_ANY_HOST !== '1') {
    problems.push('SFTP_URL is set but SFTP_HOST_FINGERPRINT is not (set SFTP_INSECURE_ACCEPT_ANY_HOST=1 to skip host-key checks in development)');
  }
  const publicBaseUrl = e.PUBLIC_BASE_URL === undefined ? null : baseUrl(String(e.PUBLIC_BASE_URL), problems);
  const trustProxy = e.TRUST_PROXY === undefined ? null : trustedProxies(String(e.TRUST_PROXY), problems);
  if (problems.length) throw new ConfigError(problems);
  return Object.freeze({
    port: e.PORT,
    metricsPort: e.METRICS_PORT ?? null,
    corsOrigins:
      e.CORS_ORIGINS === '*'
        ? '*'
        : String(e.CORS_ORIGINS)
            .split(',')
            .map((o: string) => o.trim()),
    databaseUrl: e.DATABASE_URL ?? null,
    databaseReadUrl: e.DATABASE_READ_URL ?? null,
    dataDir: e.DATA_DIR,
    embeddedSharedBuffers: e.EMBEDDED_SHARED_BUFFERS ?? null,
    redisUrl: e.REDIS_URL ?? null,
    redisPrefix: e.REDIS_PREFIX ?? null,
    operatorToken: e.OPERATOR_TOKEN ?? null,
    smtpUrl: e.SMTP_URL ?? null,
    mailFrom: e.MAIL_FROM,
    turnstileSecret: e.TURNSTILE_SECRET ?? null,
    turnstileVerifyUrl: e.TURNSTILE_VERIFY_URL,
    fxSource: e.FX_SOURCE,
    fxPrimaryUrl: e.FX_PRIMARY_URL,
    fxBackupUrl: e.FX_BACKUP_URL,
    sftpUrl: e.SFTP_URL ?? null,
    sftpPrivateKeyPath: e.SFTP_PRIVATE_KEY_PATH ?? null,
    sftpHostFingerprint: e.SFTP_HOST_FINGERPRINT ?? null,
    sftpInsecureAcceptAnyHost: e.SFTP_INSECURE_ACCEPT_ANY_HOST === '1',
    sftpPollMs: e.SFTP_POLL_MS,
    sftpOfficeShare: e.SFTP_OFFICE_SHARE,
    sftpClaimsPerPoll: e.SFTP_CLAIMS_PER_POLL,
    circuitBreakerRatio: e.CIRCUIT_BREAKER_RATIO,
    circuitBreakerMin: e.CIRCUIT_BREAKER_MIN,
    dbReadTimeoutMs: e.DB_READ_TIMEOUT_MS,
    dbPreparedStatements: e.DB_PREPARED_STATEMENTS,
    publicPageMaxBytes: e.PUBLIC_PAGE_MAX_BYTES,
    searchExactTotalMax: e.SEARCH_EXACT_TOTAL_MAX,
    feedMaxBytes: e.FEED_MAX_BYTES,
    feedSyncWaitMs: e.FEED_SYNC_WAIT_MS,
    feedBodyIdleMs: e.FEED_BODY_IDLE_MS,
    feedUploadsPerKey: e.FEED_UPLOADS_PER_KEY,
    feedUploadsTotal: e.FEED_UPLOADS_TOTAL,
    validateConcurrency: e.VALIDATE_CONCURRENCY,
    validateWaitMs: e.VALIDATE_WAIT_MS,
    validateUploadsPerAddress: e.VALIDATE_UPLOADS_PER_ADDRESS,
    validateUploads: e.VALIDATE_UPLOADS,
    validateBodyMaxMs: e.VALIDATE_BODY_MAX_MS,
    validateMinBytesPerS: e.VALIDATE_MIN_BYTES_PER_S,
    readThreads: e.READ_THREADS,
    validateRateLimit: e.VALIDATE_RATE_LIMIT,
    validateMaxPreviews: e.VALIDATE_MAX_PREVIEWS,
    validateMaxIssues: e.VALIDATE_MAX_ISSUES,
    leadRetentionDays: e.LEAD_RETENTION_DAYS,
    leadCrmWaitMs: e.LEAD_CRM_WAIT_MS,
    feedBodyRetentionDays: e.FEED_BODY_RETENTION_DAYS,
    leadRateLimit: e.LEAD_RATE_LIMIT,
    resoRateLimit: e.RESO_RATE_LIMIT,
    changeLogDays: e.CHANGE_LOG_DAYS,
    keyRequestRateLimit: e.KEY_REQUEST_RATE_LIMIT,
    webhookAllowPrivateNetworks: e.WEBHOOK_ALLOW_PRIVATE_NETWORKS === '1',
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    webhookDisableAfterHours: e.WEBHOOK_DISABLE_AFTER_HOURS,
    webhookTestRateLimit: e.WEBHOOK_TEST_RATE_LIMIT,
    logLevel: e.LOG_LEVEL,
    publicBaseUrl,
    trustProxy,
  });
}

/**
 * The configuration of this process, or null when it has problems: they are written to stderr,
 * every one of them, for the caller to exit with a failure (a service at start, a command).
 */
export function loadConfigOrReport(): Readonly<Config> | null {
  try {
    return loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return null;
  }
}
