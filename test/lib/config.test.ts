import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { expect } from 'chai';
import { createAjv } from '../../lib/ajv.js';
import { CONFIG_VARIABLES, ConfigError, configTable, envSchema, loadConfig, readmeConfigTable } from '../../lib/config.js';
import { repoRoot } from '../helpers.js';

describe('configuration', () => {
  it("is named in the README's configuration table, each variable once, and nothing the service does not read", () => {
    const readme = readFileSync(resolve(repoRoot, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
    const named = section
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...line.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));
    expect(
      named.filter((name, i) => named.indexOf(name) !== i),
      'named twice',
    ).to.deep.equal([]);
    expect([...named].sort()).to.deep.equal([...CONFIG_VARIABLES].sort());
    expect(readmeConfigTable(readme), 'the README table is generated from lib/config.ts: run node tools/config-table.mjs').to.equal(configTable());
  });

  it('has a schema that is valid JSON Schema (the service compiles it without checking: a start is quicker)', () => {
    const meta = createAjv();
    expect(meta.validateSchema(envSchema), JSON.stringify(meta.errors)).to.equal(true);
  });

  it('runs with no configuration at all: the embedded defaults', () => {
    const config = loadConfig({});
    expect(config).to.include({
      port: 3000,
      databaseUrl: null,
      dataDir: './data',
      redisUrl: null,
      redisPrefix: null,
      operatorToken: null,
      smtpUrl: null,
      mailFrom: 'no-reply@localhost',
      fxSource: 'static',
      sftpUrl: null,
      sftpPollMs: 15000,
      sftpOfficeShare: 50,
      sftpClaimsPerPoll: 100,
      circuitBreakerRatio: 0.2,
      circuitBreakerMin: 5,
      feedMaxBytes: 100 * 1024 * 1024,
      feedSyncWaitMs: 30000,
      leadRetentionDays: 365,
      leadRateLimit: 20,
      keyRequestRateLimit: 10,
    });
    expect(Object.isFrozen(config)).to.equal(true);
    const cores = availableParallelism();
    expect(config.readThreads).to.equal(cores > 1 ? Math.min(cores, 8) : 0);
  });

  it("takes the embedded database's shared_buffers as a PostgreSQL size, and refuses anything else", () => {
    expect(loadConfig({}).embeddedSharedBuffers).to.equal(null);
    expect(loadConfig({ EMBEDDED_SHARED_BUFFERS: '16MB' }).embeddedSharedBuffers).to.equal('16MB');
    for (const bad of ['16', 'lots', '16MB; DROP', '0MB', '16mb'])
      expect(() => loadConfig({ EMBEDDED_SHARED_BUFFERS: bad }), bad).to.throw(ConfigError, /EMBEDDED_SHARED_BUFFERS/);
  });

  it('takes PUBLIC_BASE_URL as a scheme, host and path prefix, and refuses anything more', () => {
    expect(loadConfig({}).publicBaseUrl).to.equal(null);
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://API.example.com' }).publicBaseUrl).to.equal('https://api.example.com');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://api.example.com:8443/listings/' }).publicBaseUrl).to.equal('https://api.example.com:8443/listings');
    for (const bad of ['api.example.com', 'ftp://api.example.com', 'https://u:p@api.example.com', 'https://api.example.com/?a=1', 'https://api.example.com/#x'])
      expect(() => loadConfig({ PUBLIC_BASE_URL: bad }), bad).to.throw(ConfigError, /PUBLIC_BASE_URL/);
  });

  it('takes ALERT_LISTING_URL only when it names the listing', () => {
    expect(loadConfig({}).alertListingUrl).to.equal(null);
    expect(loadConfig({ ALERT_LISTING_URL: 'https://portal.example/l/{office}/{uniqueId}' }).alertListingUrl).to.equal(
      'https://portal.example/l/{office}/{uniqueId}',
    );
    expect(loadConfig({ ALERT_LISTING_URL: 'https://portal.example/l?key={listingKey}' }).alertListingUrl).to.equal(
      'https://portal.example/l?key={listingKey}',
    );
    expect(() => loadConfig({ ALERT_LISTING_URL: 'https://portal.example/l/{office}' })).to.throw(ConfigError, /ALERT_LISTING_URL must name the listing/);
    expect(() => loadConfig({ ALERT_LISTING_URL: 'ftp://portal.example/{uniqueId}' })).to.throw(ConfigError, /ALERT_LISTING_URL/);
  });

  it('takes TRUST_PROXY as a number of proxies or their addresses, and refuses true and anything unknown', () => {
    expect(loadConfig({}).trustProxy).to.equal(null);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).to.equal(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8,fd00::/8, 192.0.2.1' }).trustProxy).to.deep.equal([
      'loopback',
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.1',
    ]);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).to.throw(ConfigError, /TRUST_PROXY=true would trust the X-Forwarded-For header of any client/);
    expect(() => loadConfig({ TRUST_PROXY: '0' })).to.throw(ConfigError, /between 1 and 10/);
    expect(() => loadConfig({ TRUST_PROXY: 'loopback,proxy.internal,10.0.0.0/99' })).to.throw(
      ConfigError,
      /TRUST_PROXY: "proxy.internal", "10.0.0.0\/99" are not a proxy count/,
    );
  });

  it('reads and coerces the variables it is given', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://u@h/db',
      REDIS_URL: 'redis://127.0.0.1:6379',
      FEED_MAX_BYTES: '2048',
      CIRCUIT_BREAKER_RATIO: '0.5',
      FX_SOURCE: 'live',
      READ_THREADS: '0',
    });
    expect(config).to.include({
      readThreads: 0,
      port: 8080,
      databaseUrl: 'postgres://u@h/db',
      redisUrl: 'redis://127.0.0.1:6379',
      feedMaxBytes: 2048,
      circuitBreakerRatio: 0.5,
      fxSource: 'live',
    });
  });

  it('reports every problem together', () => {
    let err: unknown;
    try {
      loadConfig({
        PORT: '70000',
        DATABASE_URL: 'mysql://x',
        FX_SOURCE: 'maybe',
        CIRCUIT_BREAKER_RATIO: '2',
        OPERATOR_TOKEN: 'short',
        SFTP_URL: 'sftp://u@h:22/root',
        READ_THREADS: '-1',
      });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'DATABASE_URL', 'FX_SOURCE', 'CIRCUIT_BREAKER_RATIO', 'OPERATOR_TOKEN', 'SFTP_HOST_FINGERPRINT', 'READ_THREADS']) {
      expect(problems).to.include(name);
    }
  });
});
