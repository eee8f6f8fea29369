import { request } from 'node:http';
import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { changeFeedKeyStatus } from '../../db/feed-keys.js';
import { eventually, feed, leftTempDirs, postgresUrl, tempDirs } from '../helpers.js';
import { freePort, scratchDatabase, spawnRole } from '../processes.js';
import { redisUrl, startTestService, type TestService } from '../service.js';
import { startTcpProxy, type TcpProxy } from '../tcp-proxy.js';
import { activeKey, officeListing, pushFeed } from './client.js';

const pgPort = Number(new URL(postgresUrl).port || 5432);

/** Starts a raw XML upload that sends its headers and a first piece, then nothing more. */
function slowDrip(url: string, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/feeds?currency=AUD`,
      { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/xml', 'content-length': '100000' } },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
        res.on('error', reject);
      },
    );
    req.on('error', (err) => resolve({ status: 0, body: err.message }));
    req.write('<?xml version="1.0"?><propertyList>');
  });
}

describe('POST /v1/feeds as a request: slow senders, outages while waiting, shutdown, the answer (PostgreSQL + Redis)', function () {
  this.timeout(60_000);

  describe('a service with a short body idle time', () => {
    let svc: TestService;
    let key: string;
    before(async () => {
      svc = await startTestService({ database: 'postgres', redis: true, env: { FEED_BODY_IDLE_MS: '1500' } });
      key = await activeKey(svc.db, ['OFF1']);
    });
    after(() => svc.close());

    it('twelve slow-drip uploads hold no database connection: the site answers meanwhile, and each gets 408', async () => {
      const before = tempDirs('feed-body-');
      // Twelve keys: one key may have only a few uploads in flight at once.
      const keys = await Promise.all(Array.from({ length: 12 }, () => activeKey(svc.db, ['OFF1'])));
      const drips = keys.map((dripKey) => slowDrip(svc.url, dripKey));
      await new Promise((r) => setTimeout(r, 300));
      // More uploads than the pool's 10 connections: reads and a real feed still go through.
      const read = await fetch(`${svc.url}/v1/listings?limit=1`);
      expect(read.status).to.equal(200);
      const pushed = await pushFeed(svc.url, key, feed(officeListing('OFF1', 'DRIP')));
      expect(pushed.status).to.equal(200);
      for (const drip of await Promise.all(drips)) {
        expect(drip.status, drip.body).to.equal(408);
        expect(JSON.parse(drip.body).error).to.match(/stopped arriving for 2 s; nothing was stored/);
      }
      expect(
        await svc
          .db('feed_events')
          .count({ n: '*' })
          .then(([r]) => Number(r.n)),
        'only the real feed was stored',
      ).to.equal(1);
      // Each upload's handler ends too, and removes the part of the body it had received.
      expect(await leftTempDirs('feed-body-', before)).to.deep.equal([]);
    });

    it('a key revoked while its upload is in flight lands nothing: 401 once the body is in', async () => {
      const revokable = await activeKey(svc.db, ['OFF1']);
      const [{ id }] = await svc.db('feed_keys').orderBy('created_at', 'desc').limit(1).select('id');
      const before = await svc
        .db('feed_events')
        .count({ n: '*' })
        .then(([r]) => Number(r.n));
      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          `${svc.url}/v1/feeds?currency=AUD`,
          { method: 'POST', headers: { authorization: `Bearer ${revokable}`, 'content-type': 'application/xml' } },
          (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          },
        );
        req.on('error', reject);
        req.write('<?xml version="1.0"?><propertyList>');
        // Revoked while the body is still arriving; then the rest of the feed.
        setTimeout(async () => {
          await changeFeedKeyStatus(svc.db, id, 'revoked');
          req.end(`${officeListing('OFF1', 'REVOKED')}</propertyList>`);
        }, 300);
      });
      const res = await answer;
      expect(res.status, res.body).to.equal(401);
      expect(JSON.parse(res.body).error).to.match(/revoked or suspended while the feed was being sent; nothing was stored/);
      expect(
        await svc
          .db('feed_events')
          .count({ n: '*' })
          .then(([r]) => Number(r.n)),
      ).to.equal(before);
      expect(await svc.db('listings').where({ listing_key: 'OFF1/REVOKED' }).first()).to.equal(undefined);
    });

    it('a 200 carries the feedId and a Location header naming its status URL', async () => {
      const res = await pushFeed(svc.url, key, feed(officeListing('OFF1', 'LOC')));
      const body = await res.json();
      expect(res.status).to.equal(200);
      expect(validatorFor('IngestionResult')(body)).to.equal(true);
      expect(body.feedId).to.match(/^[0-9a-f-]{36}$/);
      expect(res.headers.get('location')).to.equal(`/v1/feeds/${body.feedId}`);
      const status = await (await fetch(`${svc.url}${res.headers.get('location')}`, { headers: { authorization: `Bearer ${key}` } })).json();
      expect(status).to.include({ feedId: body.feedId, status: 'done' });
    });
  });

  describe('the database goes away while the request waits for the result', () => {
    let proxy: TcpProxy;
    let web: TestService;
    let worker: TestService | null = null;
    let key: string;
    before(async () => {
      proxy = await startTcpProxy(pgPort);
      const viaProxy = new URL(postgresUrl);
      viaProxy.port = String(proxy.port);
      // No consumer at first, so the feed waits in the queue while the database is cut.
      web = await startTestService({
        database: 'postgres',
        redis: true,
        consume: false,
        env: { DATABASE_URL: viaProxy.toString(), FEED_SYNC_WAIT_MS: '20000' },
      });
      key = await activeKey(web.db, ['OFF1']);
    });
    after(async () => {
      proxy.resume();
      await worker?.close();
      await web.close();
      await proxy.close();
    });

    it('answers 202 with the feedId and statusUrl, never "nothing accepted", and the feed is ingested later', async () => {
      const pending = pushFeed(web.url, key, feed(officeListing('OFF1', 'STORED')));
      await eventually('the feed stored', () => web.db('feed_events').first('id'));
      proxy.cut();
      const res = await pending;
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).to.equal(202);
      expect(validatorFor('FeedAccepted')(body)).to.equal(true);
      expect(body.statusUrl).to.equal(`/v1/feeds/${body.feedId}`);
      proxy.resume();
      worker = await startTestService({ database: 'postgres', redis: true, db: web.db, queuePrefix: web.queuePrefix });
      let status = '';
      for (let i = 0; i < 200 && status !== 'done'; i += 1) {
        status = (
          await web
            .db('feed_events')
            .where({ id: body.feedId })
            .first('status')
            .catch(() => ({ status: '' }))
        ).status;
        if (status !== 'done') await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).to.equal('done');
      expect(await web.db('listings').where({ listing_key: 'OFF1/STORED' }).first()).to.have.property('status', 'active');
    });
  });

  it('web and worker in two processes: the 200 carries the whole result, from the announcement (short) or read back (long)', async function () {
    this.timeout(60_000);
    const database = await scratchDatabase();
    const port = await freePort();
    const env = { PORT: String(port), DATABASE_URL: database.url, REDIS_URL: redisUrl, LOG_LEVEL: 'info', FEED_SYNC_WAIT_MS: '20000' };
    const web = spawnRole('api/main.js', env);
    const worker = spawnRole('workers/main.js', env);
    try {
      await web.waitFor('"listening"');
      await worker.waitFor('"worker started"');
      const { createDb } = await import('../../db/knex.js');
      const db = createDb({ databaseUrl: database.url, dataDir: '' });
      try {
        const key = await activeKey(db, ['OFF1']);
        const base = `http://127.0.0.1:${port}`;
        // One listing: a result of a few hundred bytes, carried by the NOTIFY. 200 listings: some
        // 9 KB of result, more than a NOTIFY carries, so the web role reads the event.
        for (const listings of [1, 200]) {
          const res = await pushFeed(base, key, feed(...Array.from({ length: listings }, (_, i) => officeListing('OFF1', `N${listings}-${i}`))));
          const body = await res.json();
          expect(res.status, JSON.stringify(body)).to.equal(200);
          const { feedId, ...result } = body;
          expect(result.upserts).to.have.length(listings);
          expect(JSON.stringify(result).length > 7000).to.equal(listings > 1);
          const status = await (await fetch(`${base}/v1/feeds/${feedId}`, { headers: { authorization: `Bearer ${key}` } })).json();
          expect(result).to.deep.equal(status.result);
        }
      } finally {
        await db.destroy();
      }
    } finally {
      web.child.kill('SIGKILL');
      worker.child.kill('SIGKILL');
      await database.drop();
    }
  });

  it('SIGTERM while a request waits for its feed: answered 202 with the statusUrl at once, then the process stops', async function () {
    this.timeout(60_000);
    const database = await scratchDatabase();
    const port = await freePort();
    // A web role with no worker and the longest wait: without the shutdown answer the request would hang.
    const web = spawnRole('api/main.js', {
      PORT: String(port),
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl,
      LOG_LEVEL: 'info',
      FEED_SYNC_WAIT_MS: '600000',
      OPERATOR_TOKEN: 'operator-token-for-tests-0123456789',
    });
    try {
      await web.waitFor('"listening"');
      const { createDb } = await import('../../db/knex.js');
      const db = createDb({ databaseUrl: database.url, dataDir: '' });
      const key = await activeKey(db, ['OFF1']);
      const pending = pushFeed(`http://127.0.0.1:${port}`, key, feed(officeListing('OFF1', 'TERM')));
      await eventually('the feed stored', () => db('feed_events').first('id'));
      web.child.kill('SIGTERM');
      const res = await pending;
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).to.equal(202);
      expect(body).to.include({ status: 'queued', statusUrl: `/v1/feeds/${body.feedId}` });
      expect(await web.exited).to.equal(0);
      await db.destroy();
    } finally {
      web.child.kill('SIGKILL');
      await database.drop();
    }
  });

  it('SIGTERM while a body is still arriving: answered 503 with Retry-After at once, nothing stored or left on disk, then the process stops', async function () {
    this.timeout(60_000);
    const database = await scratchDatabase();
    const port = await freePort();
    const web = spawnRole('api/main.js', { PORT: String(port), DATABASE_URL: database.url, REDIS_URL: redisUrl, LOG_LEVEL: 'info' });
    try {
      await web.waitFor('"listening"');
      const { createDb } = await import('../../db/knex.js');
      const db = createDb({ databaseUrl: database.url, dataDir: '' });
      const key = await activeKey(db, ['OFF1']);
      const before = tempDirs('feed-body-');
      const answer = new Promise<{ status: number; retryAfter?: string; body: string }>((resolve, reject) => {
        const req = request(
          `http://127.0.0.1:${port}/v1/feeds`,
          { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': '1000000' } },
          (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'], body }));
          },
        );
        req.on('error', reject);
        req.write(`{"xml": "<propertyList>${' '.repeat(400_000)}`);
      });
      // The JSON form's xml is received into a temporary file as it arrives (past the 256 KB held in memory).
      await eventually('the body spooled to a file', async () => (await leftTempDirs('feed-body-', before, 0)).length > 0);
      expect(await leftTempDirs('feed-body-', before, 0)).to.have.length(1);
      const started = Date.now();
      web.child.kill('SIGTERM');
      const res = await answer;
      console.log(`      503 answered ${Date.now() - started} ms after SIGTERM`);
      expect(res.status, res.body).to.equal(503);
      expect(res.retryAfter).to.match(/^\d+$/);
      expect(JSON.parse(res.body).error).to.match(/shutting down; nothing was stored, send it again/);
      expect(await web.exited).to.equal(0);
      expect(await leftTempDirs('feed-body-', before)).to.deep.equal([]);
      expect(await db('feed_events').count({ n: '*' })).to.deep.equal([{ n: '0' }]);
      await db.destroy();
    } finally {
      web.child.kill('SIGKILL');
      await database.drop();
    }
  });
});
