import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import express from 'express';
import { Redis } from 'ioredis';
import { addressLimit } from '../../api/middleware/rate-limit.js';
import { createLogger } from '../../lib/logger.js';
import { listen } from '../helpers.js';
import { OPERATOR, startTestService, type TestService } from '../service.js';

describe('Headers browsers rely on: CORS for the public API, security headers everywhere', function () {
  this.timeout(30_000);
  let svc: TestService;
  let open: TestService;
  before(async () => {
    svc = await startTestService({ database: 'pglite', env: { CORS_ORIGINS: 'https://portal.example, https://www.portal.example' } });
    open = await startTestService({ database: 'pglite' });
  });
  after(async () => {
    await svc.close();
    await open.close();
  });

  const get = (base: string, path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });

  it('public reads answer the configured origins, and any origin by default; never with credentials', async () => {
    for (const path of ['/v1/listings', '/v1/agents', '/v1/offices', '/v1/countries', '/v1/projects', '/v1/fx', '/v1/site']) {
      const res = await get(svc.url, path, { origin: 'https://www.portal.example' });
      expect(res.headers.get('access-control-allow-origin'), path).to.equal('https://www.portal.example');
      expect(res.headers.get('access-control-allow-credentials'), path).to.equal(null);
      expect((await get(svc.url, path, { origin: 'https://elsewhere.example' })).headers.get('access-control-allow-origin'), path).to.equal(null);
      expect((await get(open.url, path, { origin: 'https://anyone.example' })).headers.get('access-control-allow-origin'), path).to.equal('*');
    }
    const preflight = await fetch(`${svc.url}/v1/leads`, {
      method: 'OPTIONS',
      headers: { origin: 'https://portal.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).to.equal(204);
    expect(preflight.headers.get('access-control-allow-origin')).to.equal('https://portal.example');
    expect(preflight.headers.get('access-control-allow-methods')).to.contain('POST');
  });

  it('feed, admin and developer routes send no CORS headers', async () => {
    for (const path of ['/v1/feeds/whoami', '/v1/admin/stats', '/v1/openapi.json', '/developer', '/v1/leads', `/v1/leads/${randomUUID()}`]) {
      const res = await get(open.url, path, { origin: 'https://anyone.example', authorization: `Bearer ${OPERATOR}` });
      expect(res.headers.get('access-control-allow-origin'), path).to.equal(null);
    }
    // A key's lead reads share a path with the consumers' enquiries, not their CORS.
    const preflight = await fetch(`${open.url}/v1/leads`, {
      method: 'OPTIONS',
      headers: { origin: 'https://anyone.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('every page carries the security headers, with a Content-Security-Policy of their own scripts only', async () => {
    for (const path of ['/developer', '/docs/', '/nothing-here']) {
      const res = await get(svc.url, path);
      expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff');
      expect(res.headers.get('x-frame-options'), path).to.equal('SAMEORIGIN');
      expect(res.headers.get('strict-transport-security'), path).to.match(/max-age=/);
      expect(res.headers.get('referrer-policy'), path).to.equal('no-referrer');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, path).to.contain("script-src 'self'");
      expect(csp, path).not.to.match(/script-src[^;]*unsafe-inline/);
      expect(csp, path).to.contain("frame-ancestors 'none'");
    }
  });

  it('every JSON API answer carries the headers OWASP asks of API answers, and not the ones only documents use', async () => {
    const paths = ['/v1/listings', '/v1/listings?sort=bogus', '/v1/nothing-here', '/v1/openapi.json', '/v1/feeds/whoami', '/v1/admin/stats'];
    for (const path of paths) {
      const res = await get(svc.url, path, { authorization: `Bearer ${OPERATOR}` });
      expect(res.headers.get('content-type'), path).to.match(/^application\/json/);
      expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff');
      expect(res.headers.get('x-frame-options'), path).to.equal('DENY');
      expect(res.headers.get('strict-transport-security'), path).to.match(/max-age=/);
      expect(res.headers.get('cross-origin-resource-policy'), path).to.equal('same-origin');
      expect(res.headers.get('content-security-policy'), path).to.equal("default-src 'none';frame-ancestors 'none'");
      for (const documentOnly of ['referrer-policy', 'x-xss-protection', 'x-dns-prefetch-control', 'x-download-options', 'origin-agent-cluster']) {
        expect(res.headers.get(documentOnly), `${path} ${documentOnly}`).to.equal(null);
      }
    }
  });

  it('the rate limiter reports an unreachable Redis through the service log, not the console', async () => {
    const lines: string[] = [];
    const logger = createLogger('warn', { write: (line: string) => void lines.push(line) });
    const redis = new Redis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 1,
      commandTimeout: 300,
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    redis.on('error', () => undefined);
    const app = express();
    app.get('/x', addressLimit({ name: 'probe', allowance: 5, redis, prefix: 'rl-probe:', logger }), (_req, res) => {
      res.json({ ok: true });
    });
    const server = await listen(app);
    const consoleError = console.error;
    const printed: unknown[] = [];
    console.error = (...args: unknown[]) => void printed.push(args);
    try {
      const res = await fetch(`${server.url}/x`);
      expect(res.status, 'a limiter that cannot count lets the request through').to.equal(200);
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      console.error = consoleError;
      await server.close();
      redis.disconnect();
    }
    expect(printed, 'nothing on the console').to.deep.equal([]);
    expect(lines.map((l) => JSON.parse(l)).some((l) => l.limit === 'probe' && /express-rate-limit/.test(l.msg))).to.equal(true);
  });
});
