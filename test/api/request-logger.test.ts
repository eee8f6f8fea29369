import { Writable } from 'node:stream';
import { expect } from 'chai';
import express from 'express';
import { errorHandler, notFoundHandler } from '../../api/middleware/error-handler.js';
import { requestLogger } from '../../api/middleware/request-logger.js';
import { createLogger } from '../../lib/logger.js';
import { listen } from '../helpers.js';

describe('HTTP: request logging', () => {
  let lines: Record<string, any>[] = [];
  let server: Awaited<ReturnType<typeof listen>>;
  let releaseSlow: () => void = () => undefined;

  before(async () => {
    const sink = new Writable({
      write(chunk, _enc, cb) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
        cb();
      },
    });
    const app = express();
    app.use(requestLogger(app, createLogger('info', sink)));
    app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
    app.get('/ok', (req, res) => {
      req.log?.info({ contact: { email: 'buyer@example.com' }, listing: 'OFF1/L1' }, 'lead taken');
      res.json({ ok: true });
    });
    app.get('/boom', () => {
      throw new Error('kaboom');
    });
    app.get('/slow', async (_req, res) => {
      await new Promise<void>((resolve) => (releaseSlow = resolve));
      if (!res.destroyed) res.json({ late: true });
    });
    app.use(notFoundHandler);
    app.use(errorHandler);
    server = await listen(app);
  });
  after(async () => {
    releaseSlow();
    await server.close();
  });
  beforeEach(() => {
    lines = [];
  });

  /** Lines are written when the response finishes, just after the client has it. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it('writes one info line per request with its id, method, url, status and time, and echoes the id', async () => {
    const res = await fetch(`${server.url}/ok?x=1`, { headers: { authorization: 'Bearer fk_secret_token' } });
    expect(res.status).to.equal(200);
    const id = res.headers.get('x-request-id');
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    await settle();
    const done = lines.find((l) => l.msg === 'request completed');
    expect(done).to.include({ level: 30, reqId: id, responseTime: done?.responseTime });
    expect(done?.req).to.deep.equal({ method: 'GET', url: '/ok?x=1' });
    expect(done?.res).to.deep.equal({ statusCode: 200 });
    expect(done?.responseTime).to.be.a('number');
    expect(lines.filter((l) => l.msg === 'request completed')).to.have.length(1);
    // Lines written inside the request carry its id; contact details are redacted; no credential appears anywhere.
    const inner = lines.find((l) => l.msg === 'lead taken');
    expect(inner).to.include({ reqId: id, listing: 'OFF1/L1' });
    expect(inner?.contact.email).to.equal('[Redacted]');
    expect(JSON.stringify(lines)).not.to.include('fk_secret_token');
  });

  it("leaves an alert link's token out of the logged url (it stands for the subscriber's address)", async () => {
    const res = await fetch(`${server.url}/ok?token=lal_secret_alert_token&x=1`);
    expect(res.status).to.equal(200);
    await settle();
    const done = lines.find((l) => l.msg === 'request completed');
    expect(done?.req.url).to.equal('/ok?token=[redacted]&x=1');
    expect(JSON.stringify(lines)).not.to.include('lal_secret_alert_token');
  });

  it('keeps a well-formed inbound X-Request-Id and replaces a malformed one', async () => {
    const kept = await fetch(`${server.url}/ok`, { headers: { 'x-request-id': 'crm-42.a_b' } });
    expect(kept.headers.get('x-request-id')).to.equal('crm-42.a_b');
    const replaced = await fetch(`${server.url}/ok`, { headers: { 'x-request-id': 'bad id <script>' } });
    expect(replaced.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    await settle();
    expect(lines.filter((l) => l.msg === 'request completed').map((l) => l.reqId)).to.deep.equal(['crm-42.a_b', replaced.headers.get('x-request-id')]);
  });

  it('logs 4xx at warn and 5xx at error, with the failure logged under the same id', async () => {
    const missing = await fetch(`${server.url}/nowhere`);
    expect(missing.status).to.equal(404);
    const boom = await fetch(`${server.url}/boom`);
    expect(boom.status).to.equal(500);
    expect(await boom.json()).to.deep.equal({ error: 'internal error' });
    await settle();
    const completed = lines.filter((l) => l.msg === 'request completed');
    expect(completed.map((l) => [l.level, l.res.statusCode])).to.deep.equal([
      [40, 404],
      [50, 500],
    ]);
    const failed = lines.find((l) => l.msg === 'request failed');
    expect(failed?.reqId).to.equal(boom.headers.get('x-request-id'));
    expect(failed?.err.message).to.equal('kaboom');
  });

  it('does not log health probes', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).to.equal(200);
    await settle();
    expect(lines).to.deep.equal([]);
  });

  it('logs a request the client gave up on as aborted, once', async () => {
    const controller = new AbortController();
    const pending = fetch(`${server.url}/slow`, { signal: controller.signal }).catch((err: Error) => err);
    await settle();
    controller.abort();
    expect(await pending).to.be.instanceOf(Error);
    await settle();
    releaseSlow();
    await settle();
    const ended = lines.filter((l) => l.req?.url === '/slow');
    expect(ended.map((l) => [l.level, l.msg])).to.deep.equal([[40, 'request closed before its response was complete']]);
  });
});
