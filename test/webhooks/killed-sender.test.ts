import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { eventually } from '../helpers.js';
import { activeKey } from '../ingest/client.js';
import { freePort, scratchRoles } from '../processes.js';
import { redisUrl } from '../service.js';

describe('A webhook whose sending process is killed in the middle of an attempt (real processes, PostgreSQL)', function () {
  this.timeout(180_000);
  const roles = scratchRoles();
  let server: Server;
  let url: string;
  const received: IncomingHttpHeaders[] = [];
  /** Whether the next request is held unanswered (the one the killed process is waiting on). */
  let holdNext = true;

  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(req.headers);
        if (holdNext) holdNext = false;
        else res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const waitUntil = (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 90_000) => eventually(what, check, timeoutMs);

  for (const setup of ['all-in-one with the in-process queue', 'web and worker roles on BullMQ'] as const) {
    it(`${setup}: the event is sent again once the dead sender's claim lapses, and acknowledged once`, async () => {
      const onBull = setup.includes('BullMQ');
      received.length = 0;
      holdNext = true;
      const port = await freePort();
      const env = {
        DATABASE_URL: roles.url,
        PORT: String(port),
        LOG_LEVEL: 'info',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1',
        WEBHOOK_TIMEOUT_MS: '30000',
        ...(onBull ? { REDIS_URL: redisUrl } : {}),
      };
      const start = (entry: string) => roles.start(entry, env);
      let web = start(onBull ? 'api/main.js' : 'main.js');
      await web.waitFor('"listening"');
      let worker = onBull ? start('workers/main.js') : web;
      if (onBull) await worker.waitFor('"worker started"');
      const db = roles.db;
      const key = await activeKey(db, [onBull ? 'KILLB' : 'KILLA']);
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`http://127.0.0.1:${port}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return (await res.json()) as any;
      };
      const endpointId = (await call('POST', '/v1/webhooks', { url: `${url}/hook` })).endpoint.id as string;
      const { deliveryId } = await call('POST', `/v1/webhooks/${endpointId}/test`);

      await waitUntil('the attempt to reach the receiver', () => received.length === 1);
      worker.child.kill('SIGKILL');
      await worker.exited;
      const held = await db('webhook_deliveries').where({ id: deliveryId }).first();
      expect(held).to.include({ status: 'pending', attempts: 0 });
      expect(held.locked_until).to.not.equal(null);

      // The dead sender's claims (of the delivery and of the endpoint's lane) last an attempt's time
      // limit and 30 s: let them lapse, then start another sender.
      await db('webhook_deliveries')
        .where({ id: deliveryId })
        .update({ locked_until: db.raw("now() - interval '1 second'") });
      await db('webhook_endpoints')
        .where({ id: endpointId })
        .update({ sending_until: db.raw("now() - interval '1 second'") });
      if (onBull) worker = start('workers/main.js');
      else {
        web = start('main.js');
        worker = web;
      }
      await waitUntil('the delivery acknowledged', async () => (await db('webhook_deliveries').where({ id: deliveryId }).first()).status === 'delivered');
      const done = await db('webhook_deliveries').where({ id: deliveryId }).first();
      expect(done).to.include({ attempts: 1, last_status: 204 });
      expect(received.map((h) => h['webhook-id'])).to.deep.equal([deliveryId, deliveryId], 'sent again with the same webhook-id');
      for (const p of new Set([web, worker])) p.child.kill('SIGTERM');
      await Promise.all([web.exited, worker.exited]);
    });
  }
});
