import { availableParallelism } from 'node:os';
import ipaddr from 'ipaddr.js';
import { createAjv, describeAjvErrors } from './ajv.js';

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

/** One setting: its environment variable, rule, README text, and the value the service uses. */
interface Setting<T> {
  env: string;
  /** Its rule, as JSON Schema over the variable's text (coerced); `default` is used when it is unset or empty. */
  schema: Record<string, unknown>;
  /** The README's meaning column (Markdown). */
  meaning: string;
  /** The README's default column when the default alone does not say it (e.g. a unit, or what unset means). */
  shown?: string;
  /** The value in Config, from the validated variable (undefined when unset and without a default); may report problems. */
  parse: (value: unknown, problems: string[]) => T;
}

type Schema = Record<string, unknown>;
type Text = { meaning: string; shown?: string };

const url = (schemes: string[]) => ({ type: 'string', pattern: `^(${schemes.join('|')})://` });
const int = (minimum: number, maximum?: number) => ({ type: 'integer', minimum, ...(maximum === undefined ? {} : { maximum }) });

/** A setting that has a default: its value as ajv coerced it. */
function given<T extends number | string>(env: string, schema: Schema & { default: T }, text: Text): Setting<T extends number ? number : string> {
  return { env, schema, ...text, parse: (value) => value as T extends number ? number : string };
}

/** A setting without a default: null when unset. */
function optional<T extends number | string>(env: string, schema: Schema, text: Text): Setting<T | null> {
  return { env, schema, ...text, parse: (value) => (value === undefined ? null : (value as T)) };
}

/** One of a few words. */
function oneOf<const V extends readonly string[]>(env: string, values: V, fallback: V[number], text: Text): Setting<V[number]> {
  return { env, schema: { enum: values, default: fallback }, ...text, parse: (value) => value as V[number] };
}

/** `1` or `0` (the default). */
function flag(env: string, text: Text): Setting<boolean> {
  return { env, schema: { enum: ['0', '1'], default: '0' }, ...text, parse: (value) => value === '1' };
}

/**
 * Every setting: its name in Config, its environment variable, rule, default, the README's
 * configuration table (generated from here: `node tools/config-table.mjs`, a test checks), and
 * how its value is read. The only place a setting is spelled; Config is derived from it.
 */
const SETTINGS = {
  port: given('PORT', { ...int(0, 65535), default: 3000 }, { meaning: 'HTTP port' }),
  metricsPort: optional<number>('METRICS_PORT', int(1, 65535), {
    meaning: 'a port on which any role (web, worker, sftp) serves `GET /metrics` without a credential, for a scraper on the private network',
  }),
  corsOrigins: {
    env: 'CORS_ORIGINS',
    schema: { type: 'string', pattern: '^(\\*|https?://[^\\s,/]+(,\\s*https?://[^\\s,/]+)*)$', default: '*' },
    meaning:
      'origins whose pages may call the public reads and `POST /v1/leads` from a browser: `*` or a comma-separated list of `https://host` origins (no credentials either way; feed, admin and developer routes never answer cross-origin)',
    parse: (value): '*' | string[] =>
      value === '*'
        ? '*'
        : String(value)
            .split(',')
            .map((origin) => origin.trim()),
  } satisfies Setting<'*' | string[]>,
  databaseUrl: optional<string>('DATABASE_URL', url(['postgres', 'postgresql']), { meaning: 'PostgreSQL 15+ URL; unset = embedded PGlite' }),
  databaseReadUrl: optional<string>('DATABASE_READ_URL', url(['postgres', 'postgresql']), {
    meaning:
      'a streaming replica of `DATABASE_URL` for the anonymous public reads (search, listings, directory, RESO, site); while it does not answer they read the primary ([docs/architecture.md](docs/architecture.md), Read replicas)',
  }),
  dbReadTimeoutMs: given(
    'DB_READ_TIMEOUT_MS',
    { ...int(500, 60000), default: 5000 },
    {
      meaning:
        "on PostgreSQL, public reads (listings, agents, offices, projects, site, RESO Web API) use a pool of their own (5 connections, at most 3 of them for costly searches: docs/reads.md) whose statements may run this long; a read past it, or a server that does not answer, is a 503 a second later, and a search's total or facets counted past it are answered as null (not known), never a number",
    },
  ),
  dbPreparedStatements: given(
    'DB_PREPARED_STATEMENTS',
    { ...int(0, 1000), default: 64 },
    {
      meaning:
        'on PostgreSQL, how many prepared statements each public-read connection keeps (the least recently used dropped first): searches whose plan does not depend on their values (newest first within a country, office, locality or postcode; by price within a sale mode; the first page or a cursor) are parsed and planned once per shape instead of on every request. 0 turns them off, for a connection pooler in transaction mode that does not carry prepared statements',
    },
  ),
  searchExactTotalMax: given(
    'SEARCH_EXACT_TOTAL_MAX',
    { ...int(1, 10_000_000), default: 10_000 },
    {
      meaning:
        "a listing search's `total` is counted exactly up to this many matches; past it the count stops and `total` is this bound with `totalIsLowerBound: true`, so a search matching a whole city never waits for a count of every match ([docs/reads.md](docs/reads.md))",
    },
  ),
  searchRelevanceCandidates: given(
    'SEARCH_RELEVANCE_CANDIDATES',
    { ...int(1, 100_000), default: 500 },
    {
      meaning:
        "a keyword search sorted by relevance ranks at most this many of its newest matches in the headline, address or agents' names and this many of its newest matches anywhere, never every match; its pages end after those candidates ([docs/reads.md](docs/reads.md), Relevance)",
    },
  ),
  publicPageMaxBytes: given(
    'PUBLIC_PAGE_MAX_BYTES',
    { ...int(1024, 256 * 1024 * 1024), default: 4 * 1024 * 1024 },
    {
      meaning:
        "the most bytes of records one public page (listings, projects, agents, offices, a project's listings) carries: a page stops before the record that would pass it (the first record is always shown) and `nextOffset` says where the next page starts",
    },
  ),
  dataDir: given('DATA_DIR', { type: 'string', minLength: 1, default: './data' }, { meaning: 'embedded data folder (PGlite in `pglite/`, mail outbox)' }),
  embeddedSharedBuffers: optional<string>(
    'EMBEDDED_SHARED_BUFFERS',
    { type: 'string', pattern: '^[1-9][0-9]{0,5}(kB|MB|GB)$' },
    {
      meaning:
        "the embedded database's PostgreSQL `shared_buffers`, e.g. `16MB`: smaller keeps the idle all-in-one process smaller (about 296 instead of 436 MB with `16MB`) but makes bulk loads slower (a 100,000-listing load 16–17 s → 20–21 s); searches are as fast",
      shown: "PostgreSQL's 128MB",
    },
  ),
  redisUrl: optional<string>('REDIS_URL', url(['redis', 'rediss']), { meaning: 'Redis 7+ URL (`maxmemory-policy noeviction`); unset = in-process queue' }),
  redisPrefix: optional<string>(
    'REDIS_PREFIX',
    { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' },
    {
      meaning:
        'prefix of every key the service makes in Redis (letters, digits, `_.-`): services of different deployments sharing one Redis keep their queues and counters apart; every role of one deployment uses the same',
      shown: 'unset (`bull` for the queues, `rl:` for the counters)',
    },
  ),
  operatorToken: optional<string>(
    'OPERATOR_TOKEN',
    { type: 'string', minLength: 16 },
    {
      meaning: 'bootstrap operator credential, at least 16 characters',
      shown: 'unset (admin closed)',
    },
  ),
  smtpUrl: optional<string>('SMTP_URL', url(['smtp', 'smtps']), { meaning: 'SMTP server (`smtp://`, `smtps://`); unset = outbox files' }),
  mailFrom: given('MAIL_FROM', { type: 'string', pattern: '^[^\\s@<>]+@[^\\s@<>]+$', default: 'no-reply@localhost' }, { meaning: 'sender address' }),
  turnstileSecret: optional<string>(
    'TURNSTILE_SECRET',
    { type: 'string', minLength: 1 },
    {
      meaning: 'the secret of the bot challenge for leads (Cloudflare Turnstile); unset = no challenge',
    },
  ),
  turnstileVerifyUrl: given(
    'TURNSTILE_VERIFY_URL',
    { ...url(['http', 'https']), default: 'https://challenges.cloudflare.com/turnstile/v0/siteverify' },
    {
      meaning: "where the bot challenge's answers are verified",
      shown: "Cloudflare's siteverify",
    },
  ),
  fxSource: oneOf('FX_SOURCE', ['static', 'live'], 'static', {
    meaning: '`static` (the bundled snapshot) or `live` FX rates ([docs/reads.md](docs/reads.md))',
  }),
  fxPrimaryUrl: given(
    'FX_PRIMARY_URL',
    { ...url(['http', 'https']), default: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml' },
    {
      meaning: 'where `live` FX rates are fetched from',
      shown: 'ECB daily XML',
    },
  ),
  fxBackupUrl: given(
    'FX_BACKUP_URL',
    { ...url(['http', 'https']), default: 'https://open.er-api.com/v6/latest/EUR' },
    {
      meaning: '`live` FX rates when the first source fails',
      shown: 'a second public source',
    },
  ),
  sftpUrl: optional<string>('SFTP_URL', url(['sftp']), {
    meaning:
      'SFTP drops: the server, login and drop root ([docs/sftp.md](docs/sftp.md)); a URL without a host fingerprint is refused unless `SFTP_INSECURE_ACCEPT_ANY_HOST` is `1`',
  }),
  sftpPrivateKeyPath: optional<string>(
    'SFTP_PRIVATE_KEY_PATH',
    { type: 'string', minLength: 1 },
    { meaning: 'the private key file the SFTP watcher logs in with' },
  ),
  sftpHostFingerprint: optional<string>(
    'SFTP_HOST_FINGERPRINT',
    { type: 'string', pattern: '^SHA256:[A-Za-z0-9+/]{43}=?$' },
    {
      meaning: "the SFTP server's host key fingerprint (`SHA256:…`)",
    },
  ),
  sftpInsecureAcceptAnyHost: flag('SFTP_INSECURE_ACCEPT_ANY_HOST', { meaning: '`1` skips the SFTP host-key check (development only)' }),
  sftpPollMs: given('SFTP_POLL_MS', { ...int(100), default: 15000 }, { meaning: 'how often the SFTP watcher polls, in ms', shown: '15000 ms' }),
  sftpOfficeShare: given(
    'SFTP_OFFICE_SHARE',
    { ...int(1), default: 50 },
    {
      meaning:
        'fair claiming of dropped files: the most files of one office claimed and not yet ingested (a poll claims that many of an office less those) ([docs/sftp.md](docs/sftp.md))',
    },
  ),
  sftpClaimsPerPoll: given(
    'SFTP_CLAIMS_PER_POLL',
    { ...int(1), default: 100 },
    {
      meaning: 'the most files one SFTP poll claims across offices, one office after another ([docs/sftp.md](docs/sftp.md))',
    },
  ),
  circuitBreakerRatio: given(
    'CIRCUIT_BREAKER_RATIO',
    { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 0.2 },
    {
      meaning:
        "mass-delete guard for full feeds: a full feed that would archive more than this share of an office's listings (and more than `CIRCUIT_BREAKER_MIN`) archives none and waits for an operator",
    },
  ),
  circuitBreakerMin: given(
    'CIRCUIT_BREAKER_MIN',
    { ...int(0), default: 5 },
    {
      meaning: 'mass-delete guard for full feeds: archives of at most this many listings of an office always go ahead',
    },
  ),
  feedMaxBytes: given(
    'FEED_MAX_BYTES',
    { ...int(1024), default: 100 * 1024 * 1024 },
    {
      meaning: 'largest accepted feed body, in bytes',
      shown: '104857600 (100 MB)',
    },
  ),
  feedSyncWaitMs: given(
    'FEED_SYNC_WAIT_MS',
    { ...int(0, 600000), default: 30000 },
    {
      meaning:
        'how long `POST /v1/feeds` waits before 202; on the embedded default only while the feed starts within 1 s (a push that arrives while the queue is behind is answered 202 at once)',
    },
  ),
  feedBodyIdleMs: given(
    'FEED_BODY_IDLE_MS',
    { ...int(100, 600000), default: 30000 },
    {
      meaning:
        'a feed or dry-run body that stops arriving this long is answered 408 (nothing stored); a dry-run answer the client stops reading this long is dropped',
    },
  ),
  feedUploadsPerKey: given(
    'FEED_UPLOADS_PER_KEY',
    { ...int(1, 1000), default: 4 },
    {
      meaning: 'feed bodies one key may be uploading at once (one more: 429 with Retry-After)',
    },
  ),
  feedUploadsTotal: given(
    'FEED_UPLOADS_TOTAL',
    { ...int(1, 10000), default: 32 },
    {
      meaning: 'feed bodies all keys together may be uploading at once per web process (one more: 503 with Retry-After)',
    },
  ),
  validateBodyMaxMs: given(
    'VALIDATE_BODY_MAX_MS',
    { ...int(1000, 3600000), default: 120000 },
    {
      meaning: "a dry run's body must be complete within this long; else 408 and its slot is freed",
    },
  ),
  validateMinBytesPerS: given(
    'VALIDATE_MIN_BYTES_PER_S',
    { ...int(1), default: 8192 },
    {
      meaning:
        "a dry run's body must average at least this rate once its first 5 s (or a quarter of the time allowed, if less) have passed; else 408 and its slot is freed",
    },
  ),
  validateUploadsPerAddress: given(
    'VALIDATE_UPLOADS_PER_ADDRESS',
    { ...int(1, 1000), default: 2 },
    {
      meaning:
        'dry runs admitted at once per process (receiving their body, waiting or running) per client address; one more: 429 with Retry-After, before the body is read',
    },
  ),
  validateUploads: given(
    'VALIDATE_UPLOADS',
    { ...int(1, 10000), default: 8 },
    {
      meaning: 'dry runs admitted at once per process in all; one more: 503 with Retry-After, before the body is read',
    },
  ),
  validateConcurrency: given(
    'VALIDATE_CONCURRENCY',
    { ...int(1, 64), default: 2 },
    {
      meaning: 'dry runs read and checked at once per process: only a body received whole takes one, so slow senders never hold them',
    },
  ),
  validateWaitMs: given(
    'VALIDATE_WAIT_MS',
    { ...int(0, 600000), default: 10000 },
    {
      meaning: 'how long a whole dry-run body waits for one of the `VALIDATE_CONCURRENCY` slots, then 503 with Retry-After',
    },
  ),
  validateRateLimit: given('VALIDATE_RATE_LIMIT', { ...int(1), default: 300 }, { meaning: 'dry runs per client address per hour (429)' }),
  readThreads: given(
    'READ_THREADS',
    { ...int(0, 64), default: defaultReadThreads() },
    {
      meaning:
        'worker threads that read, map and validate large REAXML feeds (over 1 MB of text) in pieces, in every role that reads feeds; `0` reads every feed on the main thread. The result is the same either way',
      shown: 'one per core, at most 8; 0 on one core',
    },
  ),
  validateMaxPreviews: given(
    'VALIDATE_MAX_PREVIEWS',
    { ...int(0), default: 1000 },
    {
      meaning: 'previews kept in a dry-run answer (`truncated: true` when more were left out; counts cover everything)',
    },
  ),
  validateMaxIssues: given(
    'VALIDATE_MAX_ISSUES',
    { ...int(1), default: 10000 },
    {
      meaning: 'issues kept in a dry-run answer (`truncated: true` when more were left out; counts cover everything)',
    },
  ),
  leadRetentionDays: given('LEAD_RETENTION_DAYS', { ...int(1), default: 365 }, { meaning: 'days a lead is kept' }),
  leadRateLimit: given('LEAD_RATE_LIMIT', { ...int(1), default: 20 }, { meaning: 'leads per client address per hour (429)', shown: '20/h' }),
  alertRateLimit: given(
    'ALERT_RATE_LIMIT',
    { ...int(1), default: 20 },
    { meaning: 'alert subscription requests (`POST /v1/alerts`) one client address may make per hour (429) ([docs/alerts.md](docs/alerts.md))', shown: '20/h' },
  ),
  alertListingUrl: {
    env: 'ALERT_LISTING_URL',
    schema: url(['http', 'https']),
    meaning:
      'the public page of a listing, linked from alert mails, with `{office}`, `{uniqueId}` or `{listingKey}` filled in, e.g. `https://portal.example/listings/{office}/{uniqueId}` ([docs/alerts.md](docs/alerts.md))',
    shown: "the service's own `GET /v1/listings/{office}/{uniqueId}`",
    parse: (value, problems) => {
      if (value === undefined) return null;
      if (/\{(uniqueId|listingKey)\}/.test(String(value))) return String(value);
      problems.push(
        'ALERT_LISTING_URL must name the listing with {uniqueId} (and {office}) or {listingKey}, e.g. https://portal.example/listings/{office}/{uniqueId}',
      );
      return null;
    },
  } satisfies Setting<string | null>,
  keyRequestRateLimit: given(
    'KEY_REQUEST_RATE_LIMIT',
    { ...int(1), default: 10 },
    {
      meaning: 'key requests per client address per hour (429)',
      shown: '10/h',
    },
  ),
  leadCrmWaitMs: given(
    'LEAD_CRM_WAIT_MS',
    { ...int(1000, 7 * 24 * 3600 * 1000), default: 15 * 60 * 1000 },
    {
      meaning: "how long a lead of an office on CRM delivery waits for a CRM's acknowledgement before it is mailed instead ([docs/leads.md](docs/leads.md))",
      shown: '900000 (15 min)',
    },
  ),
  resoRateLimit: given(
    'RESO_RATE_LIMIT',
    { ...int(1), default: 600 },
    {
      meaning: 'RESO Web API requests per address per minute ([docs/reso.md](docs/reso.md))',
      shown: '600/min',
    },
  ),
  changeLogDays: given(
    'CHANGE_LOG_DAYS',
    { ...int(1, 3650), default: 30 },
    {
      meaning:
        'days the change log keeps its events (RESO `EntityEvent`, the change webhooks); a replicator whose checkpoint is older replicates from scratch ([docs/reso.md](docs/reso.md))',
    },
  ),
  feedBodyRetentionDays: given(
    'FEED_BODY_RETENTION_DAYS',
    { ...int(1), default: 30 },
    {
      meaning: "days a finished feed's raw body is kept (then deleted; the event and result stay)",
    },
  ),
  webhookTimeoutMs: given(
    'WEBHOOK_TIMEOUT_MS',
    { ...int(100, 30000), default: 5000 },
    {
      meaning: "a webhook delivery attempt's time limit, connection to the end of the answer (docs/ingestion.md, Webhooks)",
    },
  ),
  webhookDisableAfterHours: given(
    'WEBHOOK_DISABLE_AFTER_HOURS',
    { type: 'number', exclusiveMinimum: 0, maximum: 720, default: 24 },
    {
      meaning: "hours after which an endpoint failing every delivery is disabled and its key's alert address told (docs/ingestion.md, Webhooks)",
    },
  ),
  webhookTestRateLimit: given(
    'WEBHOOK_TEST_RATE_LIMIT',
    { ...int(1), default: 30 },
    {
      meaning: 'webhook test events (`POST /v1/webhooks/{id}/test`) per feed key per hour (429)',
    },
  ),
  webhookAllowPrivateNetworks: flag('WEBHOOK_ALLOW_PRIVATE_NETWORKS', {
    meaning:
      '`1` lets webhook endpoints be on loopback, private and link-local addresses and use plain http (development, an intranet); otherwise https to public addresses only',
  }),
  publicBaseUrl: {
    env: 'PUBLIC_BASE_URL',
    schema: url(['http', 'https']),
    meaning:
      "where clients reach the service (`https://api.example.com`, or with a path prefix a proxy adds: `https://example.com/listings`): the links answers carry (the search's `Link: rel=\"next\"`, the RESO Web API's `@odata.nextLink` and `@odata.context`) are built from it, never from the request's Host header, and the console's sign-out and queue-board buttons accept it as their page's origin; set it in production ([docs/reads.md](docs/reads.md), Links in answers)",
    shown: "unset: the request's scheme and Host header",
    parse: (value, problems) => (value === undefined ? null : baseUrl(String(value), problems)),
  } satisfies Setting<string | null>,
  trustProxy: {
    env: 'TRUST_PROXY',
    schema: { type: 'string', minLength: 1 },
    meaning:
      "proxies in front of the web role: how many (`1` for one load balancer) or a comma-separated list of their addresses, subnets and `loopback`, `linklocal`, `uniquelocal`. The client's address (rate limits, logs) and scheme then come from `X-Forwarded-For` and `X-Forwarded-Proto`; without it every client behind a proxy counts as the proxy. `true` is refused: any client could then choose its address",
    shown: 'unset (trust none)',
    parse: (value, problems) => (value === undefined ? null : trustedProxies(String(value), problems)),
  } satisfies Setting<number | string[] | null>,
  logLevel: oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info', { meaning: 'pino level (`silent` to mute)' }),
};

type Settings = typeof SETTINGS;

/** Validated, frozen service configuration, one property per setting above. Nothing else in the codebase reads process.env. */
export type Config = { [K in keyof Settings]: ReturnType<Settings[K]['parse']> };

const SETTING_LIST: [keyof Settings, Setting<unknown>][] = Object.entries(SETTINGS) as [keyof Settings, Setting<unknown>][];

/** The environment variables as one JSON Schema, with their rules and defaults (the test of the configuration checks it against the meta-schema). */
export const envSchema = {
  type: 'object',
  properties: Object.fromEntries(SETTING_LIST.map(([, setting]) => [setting.env, setting.schema])),
};

// Compiled without checking the schema against the JSON Schema meta-schema first (ajv's default),
// which took 50-100 ms of every process's start: test/lib/config.test.ts checks it.
const envAjv = createAjv({ coerceTypes: true });
envAjv.addSchema(envSchema, 'env', undefined, false);
const validateEnv = envAjv.getSchema('env')!;

/** Every environment variable the service reads (the README's configuration table names each: a test checks). */
export const CONFIG_VARIABLES: readonly string[] = SETTING_LIST.map(([, setting]) => setting.env);

/** The README's configuration table (Markdown), generated from the settings: `node tools/config-table.mjs` writes it. */
export function configTable(): string {
  const shownDefault = (setting: Setting<unknown>): string => {
    if (setting.shown !== undefined) return setting.shown;
    const fallback = setting.schema.default;
    if (fallback === undefined) return 'unset';
    return typeof fallback === 'number' ? String(fallback) : `\`${fallback}\``;
  };
  const rows = SETTING_LIST.map(([, setting]) => `| \`${setting.env}\` | ${setting.meaning} | ${shownDefault(setting)} |`);
  return ['| variable | meaning | default |', '|---|---|---|', ...rows].join('\n');
}

const TABLE_START = '<!-- configuration table: generated from lib/config.ts by node tools/config-table.mjs -->';
const TABLE_END = '<!-- end of the configuration table -->';

/** The README's configuration table as it stands between its markers, or null without them. */
export function readmeConfigTable(readme: string): string | null {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) return null;
  return readme.slice(start + TABLE_START.length, end).trim();
}

/** The README with its configuration table (between the markers) replaced by this one. */
export function replaceConfigTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md has no configuration table markers (${TABLE_START} … ${TABLE_END})`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${table}\n${readme.slice(end)}`;
}

/** Reads the variables once, reports every problem together, and returns a frozen Config. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const raw: Record<string, unknown> = {};
  for (const name of CONFIG_VARIABLES) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const problems: string[] = [];
  if (!validateEnv(raw)) {
    problems.push(...describeAjvErrors(validateEnv.errors, 'env').map((p) => p.replace(/^env\./, '')));
  }
  if (raw.DATABASE_READ_URL && !raw.DATABASE_URL)
    problems.push('DATABASE_READ_URL is set but DATABASE_URL is not: a read replica replicates a PostgreSQL primary (the embedded database has none)');
  if (raw.SFTP_URL && !raw.SFTP_HOST_FINGERPRINT && raw.SFTP_INSECURE_ACCEPT_ANY_HOST !== '1') {
    problems.push('SFTP_URL is set but SFTP_HOST_FINGERPRINT is not (set SFTP_INSECURE_ACCEPT_ANY_HOST=1 to skip host-key checks in development)');
  }
  const config = Object.fromEntries(SETTING_LIST.map(([name, setting]) => [name, setting.parse(raw[setting.env], problems)])) as Config;
  if (problems.length) throw new ConfigError(problems);
  return Object.freeze(config);
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
