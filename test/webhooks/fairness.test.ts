import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { expect } from 'chai';
import { eventually, feed } from '../helpers.js';
import { activeKey, officeListing, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';

/**
 * A receiver on loopback: records each request; answers 204 after `delayMs`, or (null) never.
 * `held` counts the requests it holds unanswered now, `mostHeld` the most it held at once.
 */
class Receiver {
  readonly received: { path: string; id: string; body: string }[] = [];
  held = 0;
  mostHeld = 0;
  private server!: Server;
  url = '';

  constructor(private readonly delayMs: number | null) {}

  async start(): Promise<void> {
    this.server = createServer(async (req, res) => {
      const body = await text(req);
      this.received.push({ path: req.url!, id: String(req.headers['webhook-id']), body });
      this.held += 1;
      this.mostHeld = Math.max(this.mostHeld, this.held);
      res.on('close', () => {
        this.held -= 1;
      });
      if (this.delayMs !== null) setTimeout(() => res.writeHead(204).end(), this.delayMs);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

for (const setup of [
  { name: 'PostgreSQL with BullMQ workers', options: { database: 'postgres', redis: true } },
  { name: 'the embedded default', options: { database: 'pglite' } },
] as const) {
  describe(`Webhooks: one key's dead receiver does not hold up another key's events (${setup.name})`, function () {
    this.timeout(420_000);
    let svc: TestService;
    let dead: Receiver;
    let alive: Receiver;
    let slow: Receiver;
    const call = async (key: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${svc.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    /** The endpoints' deliveries not attempted yet. */
    const untried = async (endpointIds: string[]) =>
      Number((await svc.db('webhook_deliveries').whereIn('endpoint_id', endpointIds).where({ status: 'pending', attempts: 0 }).count({ n: '*' }))[0].n);

    before(async () => {
      dead = new Receiver(null);
      alive = new Receiver(0);
      slow = new Receiver(150);
      await Promise.all([dead.start(), alive.start(), slow.start()]);
      // The production time limit (5 s an attempt); the test-event limit raised to let one key queue 200.
      svc = await startTestService({ ...setup.options, env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', WEBHOOK_TEST_RATE_LIMIT: '1000' } });
    });
    after(async () => {
      await svc?.close();
      await Promise.all([dead.close(), alive.close(), slow.close()]);
    });

    it("delivers key B's feed.completed while key A's 200 test events to a receiver that never answers are still waiting", async () => {
      const keyA = await activeKey(svc.db, ['FAIRA']);
      const keyB = await activeKey(svc.db, ['FAIRB']);
      // A's backlog: 200 test events to a receiver that never answers, over 4 of its endpoints there (a key may have 10).
      const stuck: string[] = [];
      for (const path of ['/a1', '/a2', '/a3', '/a4']) stuck.push((await call(keyA, 'POST', '/v1/webhooks', { url: `${dead.url}${path}` })).body.endpoint.id);
      for (let i = 0; i < 200; i += 1) expect((await call(keyA, 'POST', `/v1/webhooks/${stuck[i % 4]}/test`)).status).to.equal(202);
      await eventually("A's events reaching its receiver", () => dead.received.length > 0, 30_000);
      expect((await call(keyB, 'POST', '/v1/webhooks', { url: `${alive.url}/b`, events: ['feed.completed'] })).status).to.equal(201);

      const pushed = await pushFeed(svc.url, keyB, feed(officeListing('FAIRB', 'B1')));
      expect(pushed.status).to.equal(200);
      const { feedId } = (await pushed.json()) as { feedId: string };
      // B's event arrives, or A's whole backlog has had its first attempt (before lanes: 200 x 5 s, 4 at a time).
      await eventually("B's feed.completed, or A's backlog tried", async () => alive.received.length > 0 || (await untried(stuck)) === 0, 300_000);
      expect(alive.received.map((r) => JSON.parse(r.body).data.feedId)).to.deep.equal([feedId]);
      // A's backlog was still waiting in the database: each endpoint had had an attempt or two at most.
      expect(await untried(stuck)).to.be.at.least(190);
      // A's endpoints were sent to two at a time at most (LANES_PER_KEY), one request each.
      expect(dead.mostHeld).to.be.at.most(2);
      expect(new Set(dead.received.map((r) => r.path)).size).to.be.at.most(4);
    });

    it("sends each endpoint's events one at a time in order, a key's endpoints two at a time, and every one arrives", async () => {
      const key = await activeKey(svc.db, ['LANES']);
      const endpoints: string[] = [];
      for (const path of ['/l1', '/l2', '/l3', '/l4'])
        endpoints.push((await call(key, 'POST', '/v1/webhooks', { url: `${slow.url}${path}` })).body.endpoint.id);
      // 15 events each, answered after 150 ms: a lane's turn (1 s) ends with more due, and two of the
      // four lanes wait for the key's others at any moment.
      const sent = new Map<string, string[]>(endpoints.map((id) => [id, []]));
      for (let i = 0; i < 60; i += 1) {
        const id = endpoints[i % 4];
        sent.get(id)!.push((await call(key, 'POST', `/v1/webhooks/${id}/test`)).body.deliveryId);
      }
      const delivered = async () =>
        Number((await svc.db('webhook_deliveries').whereIn('endpoint_id', endpoints).where({ status: 'delivered' }).count({ n: '*' }))[0].n);
      await eventually('every event acknowledged', async () => (await delivered()) === 60, 120_000);
      expect(slow.received).to.have.length(60);
      endpoints.forEach((id, i) => {
        expect(slow.received.filter((r) => r.path === `/l${i + 1}`).map((r) => r.id)).to.deep.equal(sent.get(id), `the order of /l${i + 1}`);
      });
      expect(slow.mostHeld).to.be.at.most(2);
      const attempts = await svc.db('webhook_deliveries').whereIn('endpoint_id', endpoints).pluck('attempts');
      expect(new Set(attempts)).to.deep.equal(new Set([1]));
    });
  });
}
