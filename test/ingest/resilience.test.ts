import { expect } from 'chai';
import { feed, postgresUrl } from '../helpers.js';
import { OPERATOR, redisUrl, startTestService, type TestService } from '../service.js';
import { startTcpProxy, type TcpProxy } from '../tcp-proxy.js';
import { activeKey, officeListing, pushFeed } from './client.js';

const redisPort = Number(new URL(redisUrl).port || 6379);
const pgPort = Number(new URL(postgresUrl).port || 5432);
const viaProxy = (url: string, port: number) => {
  const u = new URL(url);
  u.port = String(port);
  return u.toString();
};

describe('Ingestion under failure: Redis and database outages, concurrent feeds', function () {
  this.timeout(60_000);

  describe('Redis stops', () => {
    let proxy: TcpProxy;
    let svc: TestService;
    let key: string;
    before(async () => {
      proxy = await startTcpProxy(redisPort);
      svc = await startTestService({ database: 'postgres', redis: true, env: { REDIS_URL: viaProxy(redisUrl, proxy.port) } });
      key = await activeKey(svc.db, ['OFF1']);
    });
    after(async () => {
      await svc.close();
      await proxy.close();
    });

    it('POST /v1/feeds answers 503 quickly while Redis is away, records the feed as rejected, and accepts again once it is back', async () => {
      expect((await pushFeed(svc.url, key, feed(officeListing('OFF1', 'A')))).status).to.equal(200);

      const ready = async () => {
        const res = await fetch(`${svc.url}/readyz`);
        return { status: res.status, body: await res.json() };
      };
      expect(await ready()).to.deep.equal({ status: 200, body: { status: 'ready', checks: { database: 'ok', redis: 'ok' } } });
      proxy.cut();
      expect(await ready(), 'readiness follows Redis too').to.deep.equal({
        status: 503,
        body: { status: 'unavailable', error: 'redis unavailable', checks: { database: 'ok', redis: 'unavailable' } },
      });
      // The queue board says Redis is away, without the queue client's own words.
      const board = await fetch(`${svc.url}/admin/queues/api/queues`, { headers: { authorization: `Bearer ${OPERATOR}` } });
      const boardText = await board.text();
      expect(board.status, boardText).to.equal(503);
      expect(JSON.parse(boardText)).to.deep.equal({ error: 'the queue store (Redis) is unavailable; try again shortly' });
      expect(board.headers.get('x-powered-by')).to.equal(null);
      const started = Date.now();
      // The signal only turns a hang into a failure; the figure is printed, not asserted.
      const res = await pushFeed(svc.url, key, feed(officeListing('OFF1', 'B')), {}).then((r) => r);
      const elapsed = Date.now() - started;
      expect(res.status).to.equal(503);
      expect((await res.json()).error).to.match(/queue is unavailable/);
      console.log(`      503 answered in ${elapsed} ms`);
      const rejected = await svc.db('feed_events').orderBy('created_at', 'desc').first();
      expect(rejected.status).to.equal('rejected');
      expect(await svc.db('listings').where({ listing_key: 'OFF1/B' }).first()).to.equal(undefined);

      proxy.resume();
      const resumed = Date.now();
      let status = 0;
      for (let i = 0; i < 120 && status !== 200; i += 1) {
        status = (await ready()).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 250));
      }
      expect(status, 'ready again once Redis is back').to.equal(200);
      const readyAfter = Date.now() - resumed;
      // Readiness and acceptance agree: once ready, the very next feed is taken.
      const accepted = await pushFeed(svc.url, key, feed(officeListing('OFF1', 'B')));
      expect(accepted.status, await accepted.clone().text()).to.equal(200);
      console.log(`      ready ${readyAfter} ms after Redis returned; the next feed was taken at once`);
      expect(await svc.db('listings').where({ listing_key: 'OFF1/B' }).first()).to.have.property('status', 'active');
    });
  });

  describe('the database stops', () => {
    let proxy: TcpProxy;
    let svc: TestService;
    let key: string;
    before(async () => {
      proxy = await startTcpProxy(pgPort);
      svc = await startTestService({ database: 'postgres', redis: true, env: { DATABASE_URL: viaProxy(postgresUrl, proxy.port), LEAD_RATE_LIMIT: '2' } });
      key = await activeKey(svc.db, ['OFF1']);
    });
    after(async () => {
      proxy.resume();
      await svc.close();
      await proxy.close();
    });

    it('answers 503 with an error body for feeds, whoami, leads, admin routes and every public read, and recovers', async () => {
      proxy.cut();
      // Enquiries answered 503 do not use up the sender's hourly allowance (LEAD_RATE_LIMIT is 2 here).
      for (let i = 0; i < 3; i += 1) {
        const res = await fetch(`${svc.url}/v1/leads`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ listing: { office: 'OFF1', uniqueId: 'NONE' }, contact: { email: 'jo@home.example', message: 'hi' }, consent: true }),
        });
        expect(res.status).to.equal(503);
      }
      for (const res of [
        await pushFeed(svc.url, key, feed(officeListing('OFF1', 'A'))),
        await fetch(`${svc.url}/v1/feeds/whoami`, { headers: { authorization: `Bearer ${key}` } }),
        await fetch(`${svc.url}/v1/admin/keys`, { headers: { authorization: `Bearer ${svc.config.operatorToken}` } }),
        ...(await Promise.all(
          ['/v1/listings', '/v1/listings/OFF1/A', '/v1/agents', '/v1/offices', '/v1/countries', '/v1/site', '/v1/site/pages/about'].map((p) =>
            fetch(`${svc.url}${p}`),
          ),
        )),
        await fetch(`${svc.url}/v1/leads`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ listing: { office: 'OFF1', uniqueId: 'A' }, contact: { email: 'jo@home.example', message: 'hi' }, consent: true }),
        }),
        ...(await Promise.all(
          ['/v1/admin/stats', '/v1/admin/leads', '/v1/admin/blocklist', '/v1/admin/listings', '/v1/admin/feeds', '/v1/admin/audit', '/v1/admin/site/pages'].map(
            (p) => fetch(`${svc.url}${p}`, { headers: { authorization: `Bearer ${svc.config.operatorToken}` } }),
          ),
        )),
      ]) {
        expect(res.status).to.equal(503);
        expect(await res.json()).to.deep.equal({ error: 'the database is unavailable; try again shortly' });
      }
      proxy.resume();
      let status = 0;
      for (let i = 0; i < 20 && status !== 200; i += 1) {
        status = (await pushFeed(svc.url, key, feed(officeListing('OFF1', 'A')))).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 250));
      }
      expect(status).to.equal(200);
      const lead = () =>
        fetch(`${svc.url}/v1/leads`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ listing: { office: 'OFF1', uniqueId: 'NONE' }, contact: { email: 'jo@home.example', message: 'hi' }, consent: true }),
        });
      expect([(await lead()).status, (await lead()).status, (await lead()).status], 'two refused (404) count, the 503s did not').to.deep.equal([404, 404, 429]);
    });
  });

  describe('the database holds its connections without answering', () => {
    let proxy: TcpProxy;
    let svc: TestService;
    before(async () => {
      proxy = await startTcpProxy(pgPort);
      svc = await startTestService({ database: 'postgres', env: { DATABASE_URL: viaProxy(postgresUrl, proxy.port), DB_READ_TIMEOUT_MS: '2000' } });
    });
    after(async () => {
      proxy.resume();
      await svc.close();
      await proxy.close();
    });

    it('a public read fails within a few seconds with 503 (read pool timeouts), and reads recover on fresh connections once it answers again', async () => {
      const paths = ['/v1/listings', '/v1/agents', '/v1/site', '/v1/listings/OFF1/A', '/v1/projects'];
      for (const p of paths) expect((await fetch(`${svc.url}${p}`)).status, p).to.be.oneOf([200, 404]);
      proxy.hold();
      const timings: number[] = [];
      for (const p of paths) {
        const started = Date.now();
        // The signal only turns a hang into a failure; the time is printed, not asserted.
        const res = await fetch(`${svc.url}${p}`, { signal: AbortSignal.timeout(20_000) });
        timings.push(Date.now() - started);
        expect(res.status, p).to.equal(503);
        expect(await res.json()).to.deep.equal({ error: 'the database is unavailable; try again shortly' });
      }
      console.log(`      503 after ${timings.join(', ')} ms (DB_READ_TIMEOUT_MS 2000)`);
      proxy.resume();
      let status = 0;
      for (let i = 0; i < 40 && status !== 200; i += 1) {
        status = (await fetch(`${svc.url}/v1/listings`)).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 250));
      }
      expect(status, 'reads answer again').to.equal(200);
      for (const p of paths) expect((await fetch(`${svc.url}${p}`)).status, p).to.be.oneOf([200, 404]);
    });
  });

  describe('two feeds for the same office at once', () => {
    let svc: TestService;
    let key: string;
    before(async () => {
      svc = await startTestService({ database: 'postgres', redis: true });
      key = await activeKey(svc.db, ['OFF1']);
    });
    after(() => svc.close());

    it('converge on the newest version of every listing, with nothing lost', async () => {
      const n = 600;
      const older = feed(...Array.from({ length: n }, (_, i) => officeListing('OFF1', `L${i}`, { modTime: '2024-03-01-10:00:00', price: 100 })));
      const newer = feed(...Array.from({ length: n }, (_, i) => officeListing('OFF1', `L${i}`, { modTime: '2024-03-02-10:00:00', price: 200 })));
      for (let round = 0; round < 3; round += 1) {
        const [a, b] = await Promise.all([
          pushFeed(svc.url, key, round % 2 ? newer : older, { mode: 'full' }),
          pushFeed(svc.url, key, round % 2 ? older : newer, { mode: 'full' }),
        ]);
        expect([a.status, b.status]).to.deep.equal([200, 200]);
        for (const body of [await a.json(), await b.json()]) {
          expect(body.counts).to.deep.equal({ parsed: n, valid: n, invalid: 0 });
          expect(body.reconcile.archived).to.equal(0);
        }
        const prices = await svc.db('listings').where({ office: 'OFF1' }).select(svc.db.raw("data->'price'->>'amount' AS amount"), 'status');
        expect(prices).to.have.length(n);
        expect(new Set(prices.map((p) => `${p.amount}/${p.status}`))).to.deep.equal(new Set(['200/active']));
      }
    });
  });
});
