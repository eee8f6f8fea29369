import { availableParallelism } from 'node:os';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../lib/config.js';

describe('configuration', () => {
  it('runs with no configuration at all: the embedded defaults', () => {
    const config = loadConfig({});
    expect(config).to.include({
      port: 3000,
      databaseUrl: null,
      dataDir: './data',
      redisUrl: null,
      operatorToken: null,
      smtpUrl: null,
      mailFrom: 'no-reply@localhost',
      fxSource: 'static',
      sftpUrl: null,
      sftpPollMs: 15000,
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
