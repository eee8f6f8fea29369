import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { schemas } from '../../api/schemas/index.js';
import { WEBHOOK_EVENT_SCHEMA } from '../../api/schemas/webhook-events.js';
import { validatorFor } from '../../api/validators.js';
import type { WebhookEventType } from '../../db/webhooks.js';
import { feed, eventually as waitFor } from '../helpers.js';
import { activeKey, admin, officeListing, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';
import { Receiver } from './receiver.js';

for (const setup of [
  { name: 'PostgreSQL with BullMQ workers', options: { database: 'postgres', redis: true } },
  { name: 'the embedded default', options: { database: 'pglite' } },
] as const) {
  describe(`Webhooks: signed events when a key's feeds end (${setup.name})`, function () {
    this.timeout(90_000);
    let svc: TestService;
    let receiver: Receiver;
    let key: string;
    const call = async (method: string, path: string, body?: unknown, as = key) => {
      const res = await fetch(`${svc.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${as}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, headers: res.headers, body: res.status === 204 ? null : ((await res.json()) as any) };
    };
    const register = async (path: string, events?: string[]) => {
      const res = await call('POST', '/v1/webhooks', { url: `${receiver.url}${path}`, events });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body as { endpoint: { id: string }; secret: string };
    };
    const delivery = (id: string) => svc.db('webhook_deliveries').where({ id }).first();
    /**
     * Waits for the endpoint at `path` to have three deliveries (a first feed's feed.completed, then
     * the change and the second feed's feed.completed) and checks that the change, of `type`, carries
     * `data` and comes before its feed.completed.
     */
    const expectChangeThenCompleted = async (path: string, change: string, type: string, data: unknown) => {
      await waitFor(`${change} and feed.completed`, () => receiver.on(path).length === 3);
      const [changed, completed] = receiver
        .on(path)
        .slice(1)
        .map((r) => JSON.parse(r.body));
      expect(changed.type).to.equal(type);
      expect(changed.data).to.deep.equal(data);
      expect(completed.type).to.equal('feed.completed');
    };

    before(async () => {
      receiver = new Receiver();
      await receiver.start();
      svc = await startTestService({
        ...setup.options,
        maintenanceEveryMs: 200,
        env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', WEBHOOK_TIMEOUT_MS: '500' },
      });
      key = await activeKey(svc.db, ['HOOK1', 'HOOK2']);
    });
    after(async () => {
      await svc.close();
      await receiver.close();
    });

    it('registers an endpoint, shows its secret once, and signs each event the Standard Webhooks way with ids and counts only', async () => {
      const created = await register('/completed', ['feed.completed']);
      expect(validatorFor('WebhookCreated')(created), JSON.stringify(validatorFor('WebhookCreated').errors)).to.equal(true);
      expect(created.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const listed = await call('GET', '/v1/webhooks');
      expect(listed.body.endpoints.map((e: any) => e.id)).to.deep.equal([created.endpoint.id]);
      expect(JSON.stringify(listed.body)).to.not.include(created.secret);

      const pushed = (await (await pushFeed(svc.url, key, feed(officeListing('HOOK1', 'H1', { headline: 'Secret headline' })))).json()) as any;
      const [got] = await waitFor('the feed.completed event', () => receiver.on('/completed').length > 0 && receiver.on('/completed'));
      const event = new Webhook(created.secret).verify(got.body, got.headers as Record<string, string>) as any;
      expect(event.type).to.equal('feed.completed');
      expect(event.data).to.include({ feedId: pushed.feedId, outcome: 'ok', statusUrl: `/v1/feeds/${pushed.feedId}` });
      expect(event.data.counts).to.deep.equal({ parsed: 1, valid: 1, invalid: 0 });
      expect(got.body).to.not.include('Secret headline');
      expect(got.headers['content-type']).to.equal('application/json');
      // A forged or altered body fails verification.
      expect(() => new Webhook(created.secret).verify(got.body.replace('ok', 'no'), got.headers as Record<string, string>)).to.throw();
      // The receiver has the event before the sender has recorded its answer: the log is read once it has.
      const log = await waitFor('the delivery recorded', async () => {
        const page = await call('GET', `/v1/webhooks/${created.endpoint.id}/deliveries`);
        return page.body.deliveries[0]?.status !== 'pending' && page;
      });
      expect(validatorFor('WebhookDeliveryPage')(log.body)).to.equal(true);
      expect(log.body.deliveries[0]).to.include({
        id: got.headers['webhook-id'],
        type: 'feed.completed',
        status: 'delivered',
        attempts: 1,
        lastStatus: 200,
        feedId: pushed.feedId,
      });
      await call('DELETE', `/v1/webhooks/${created.endpoint.id}`);
    });

    it('retries after a 500 and after a timeout, and logs each attempt', async () => {
      const created = await register('/flaky');
      receiver.plans.set('/flaky', [{ status: 500 }, { delayMs: 1500 }]);
      const test = await call('POST', `/v1/webhooks/${created.endpoint.id}/test`);
      expect(test.status).to.equal(202);
      const id = test.body.deliveryId as string;
      const first = await waitFor('the first failed attempt', async () => {
        const d = await delivery(id);
        return d.attempts === 1 && d;
      });
      expect(first).to.include({ status: 'pending', last_status: 500 });
      expect(first.last_error).to.include('answered 500');
      // The next attempt is due 5 s later, and the endpoint's lane pauses as long: bring the timeout
      // attempt and the one after it forward.
      const now = async () => {
        await svc.db('webhook_deliveries').where({ id }).update({ next_attempt_at: svc.db.fn.now() });
        await svc.db('webhook_endpoints').where({ id: created.endpoint.id }).update({ next_send_at: svc.db.fn.now() });
      };
      await now();
      const second = await waitFor('the timed-out attempt', async () => {
        const d = await delivery(id);
        return d.attempts === 2 && d;
      });
      expect(second.last_error).to.equal('no complete answer within 500 ms');
      expect(second.last_status).to.equal(null);
      await now();
      const third = await waitFor('the acknowledged attempt', async () => {
        const d = await delivery(id);
        return d.status === 'delivered' && d;
      });
      expect(third).to.include({ attempts: 3, last_status: 200 });
      const ids = receiver.on('/flaky').map((r) => r.headers['webhook-id']);
      expect(ids).to.deep.equal([id, id, id], 'every attempt carries the same webhook-id');
      await call('DELETE', `/v1/webhooks/${created.endpoint.id}`);
    });

    it('pauses a failing endpoint 5 s, then twice as long after each further failure; a new address is tried at once', async () => {
      const created = await register('/pausing');
      receiver.plans.set('/pausing', [{ status: 500 }, { status: 502 }]);
      const endpoint = () => svc.db('webhook_endpoints').where({ id: created.endpoint.id }).first();
      /**
       * The pause the endpoint's last failure set, in seconds (stored, so no clock is read here): from
       * the attempt's start to the end of the pause, so the attempt's own time is in it too (0.57 s once
       * on a loaded machine), and the bounds leave it room while telling 5 s from 10.
       */
      const pause = async () => {
        const { rows } = await svc.db.raw(
          'SELECT extract(epoch FROM e.next_send_at - d.last_attempt_at) AS s FROM webhook_endpoints e, webhook_deliveries d WHERE e.id = ? AND d.endpoint_id = e.id',
          [created.endpoint.id],
        );
        return Number(rows[0].s);
      };
      const { deliveryId } = (await call('POST', `/v1/webhooks/${created.endpoint.id}/test`)).body;
      await waitFor('the first failure', async () => (await delivery(deliveryId)).attempts === 1);
      expect((await endpoint()).failures_in_row).to.equal(1);
      expect(await pause()).to.be.within(4.9, 7);
      // Its retry comes due and the pause ends (stored times moved, not waited for): a second failure doubles it.
      await svc.db('webhook_deliveries').where({ id: deliveryId }).update({ next_attempt_at: svc.db.fn.now() });
      await svc.db('webhook_endpoints').where({ id: created.endpoint.id }).update({ next_send_at: svc.db.fn.now() });
      await waitFor('the second failure', async () => (await delivery(deliveryId)).attempts === 2);
      expect((await endpoint()).failures_in_row).to.equal(2);
      expect(await pause()).to.be.within(9.9, 12);
      // Paused, nothing is sent to it, even a new event...
      const second = (await call('POST', `/v1/webhooks/${created.endpoint.id}/test`)).body.deliveryId;
      await svc.runtime.sweep();
      await waitFor('the queue idle', async () => {
        const counts = await svc.runtime.webhookQueue.counts();
        return (counts.waiting ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) === 0;
      });
      expect((await delivery(second)).attempts).to.equal(0);
      // ...until its address changes: the new one is tried at once, and its success clears the failures.
      await call('PATCH', `/v1/webhooks/${created.endpoint.id}`, { url: `${receiver.url}/moved` });
      await svc.db('webhook_deliveries').where({ id: deliveryId }).update({ next_attempt_at: svc.db.fn.now() });
      await waitFor('both delivered to the new address', () => receiver.on('/moved').length === 2);
      expect(receiver.on('/moved').map((r) => r.headers['webhook-id'])).to.deep.equal([deliveryId, second]);
      expect(await endpoint()).to.include({ failures_in_row: 0, next_send_at: null, failing_since: null });
      await call('DELETE', `/v1/webhooks/${created.endpoint.id}`);
    });

    it('never sends an acknowledged delivery again, whatever re-queues it', async () => {
      const created = await register('/once');
      const { deliveryId } = (await call('POST', `/v1/webhooks/${created.endpoint.id}/test`)).body;
      await waitFor('delivery', async () => (await delivery(deliveryId)).status === 'delivered');
      await svc.runtime.webhookQueue.requeue(created.endpoint.id);
      await svc.runtime.webhookQueue.requeue(deliveryId); // as a job queued by delivery id before lanes was
      await svc
        .db('webhook_deliveries')
        .where({ id: deliveryId })
        .update({ next_attempt_at: svc.db.raw("now() - interval '1 hour'") });
      await svc.runtime.sweep();
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.on('/once')).to.have.length(1);
      await call('DELETE', `/v1/webhooks/${created.endpoint.id}`);
    });

    it("delivers one feed's events in order: listing.archived waits for nothing, feed.completed waits for it", async () => {
      const created = await register('/ordered', ['listing.archived', 'feed.completed']);
      await pushFeed(svc.url, key, feed(officeListing('HOOK2', 'A'), officeListing('HOOK2', 'B')));
      await waitFor('the incremental feed.completed', () => receiver.on('/ordered').length === 1);
      receiver.plans.set('/ordered', [{ status: 503 }]);
      const full = (await (await pushFeed(svc.url, key, feed(officeListing('HOOK2', 'A')), { mode: 'full' })).json()) as any;
      expect(full.reconcile.status).to.equal('applied');
      // listing.archived fails once (503), is retried 5 s later; feed.completed is held back meanwhile.
      await waitFor('the failed listing.archived', () => receiver.on('/ordered').length === 2);
      await new Promise((r) => setTimeout(r, 1000));
      expect(receiver.on('/ordered')).to.have.length(2, 'feed.completed waits for the earlier event of its feed');
      const types = async () => receiver.on('/ordered').map((r) => JSON.parse(r.body).type);
      await waitFor('both events acknowledged', async () => receiver.on('/ordered').length === 4, 30_000);
      expect(await types()).to.deep.equal(['feed.completed', 'listing.archived', 'listing.archived', 'feed.completed']);
      const archived = JSON.parse(receiver.on('/ordered')[2].body);
      expect(archived.data).to.deep.equal({ feedId: full.feedId, office: 'HOOK2', archived: 1 });
      await call('DELETE', `/v1/webhooks/${created.endpoint.id}`);
    });

    it('tells listing.status_changed when a feed sells or withdraws stored listings, before its feed.completed', async () => {
      const created = await register('/status', ['listing.status_changed', 'feed.completed']);
      await pushFeed(svc.url, key, feed(officeListing('HOOK1', 'S1'), officeListing('HOOK1', 'S2'), officeListing('HOOK1', 'S3')));
      await waitFor('the first feed.completed', () => receiver.on('/status').length === 1);
      const later = { modTime: '2024-03-02-10:00:00' };
      const res = await pushFeed(
        svc.url,
        key,
        feed(
          officeListing('HOOK1', 'S1', { ...later, status: 'sold' }),
          officeListing('HOOK1', 'S2', { ...later, status: 'withdrawn' }),
          officeListing('HOOK1', 'S3'),
        ),
      );
      const result = (await res.json()) as any;
      expect(result.statusChanges).to.deep.equal([
        { listingKey: 'HOOK1/S1', from: 'active', to: 'sold' },
        { listingKey: 'HOOK1/S2', from: 'active', to: 'withdrawn' },
      ]);
      await expectChangeThenCompleted('/status', 'the status change', 'listing.status_changed', {
        feedId: result.feedId,
        changes: [
          { listingKey: 'HOOK1/S1', office: 'HOOK1', uniqueId: 'S1', from: 'active', to: 'sold' },
          { listingKey: 'HOOK1/S2', office: 'HOOK1', uniqueId: 'S2', from: 'active', to: 'withdrawn' },
        ],
      });
      await call('DELETE', `/v1/webhooks/${created.endpoint.id}`);
    });

    it('tells listing.price_changed with the public price before and after, before its feed.completed', async () => {
      const created = await register('/price', ['listing.price_changed', 'feed.completed']);
      await pushFeed(svc.url, key, feed(officeListing('HOOK1', 'P1', { price: 500_000 })));
      await waitFor('the first feed.completed', () => receiver.on('/price').length === 1);
      const result = (await (
        await pushFeed(svc.url, key, feed(officeListing('HOOK1', 'P1', { price: 480_000, modTime: '2024-03-02-10:00:00' })))
      ).json()) as any;
      await expectChangeThenCompleted('/price', 'the price change', 'listing.price_changed', {
        feedId: result.feedId,
        changes: [
          { listingKey: 'HOOK1/P1', office: 'HOOK1', uniqueId: 'P1', from: { amount: 500_000, currency: 'AUD' }, to: { amount: 480_000, currency: 'AUD' } },
        ],
      });
      await call('DELETE', `/v1/webhooks/${created.endpoint.id}`);
    });

    it("raises listing events from the change log for every key of the listing's office, whoever changed it, and only once it committed", async () => {
      const mine = await register('/office', ['listing.status_changed']);
      const other = await activeKey(svc.db, ['HOOK1']);
      const stranger = await activeKey(svc.db, ['ELSEWHERE']);
      const theirs = (await call('POST', '/v1/webhooks', { url: `${receiver.url}/office-other`, events: ['listing.status_changed'] }, other)).body;
      const strangers = (await call('POST', '/v1/webhooks', { url: `${receiver.url}/office-stranger`, events: ['listing.status_changed'] }, stranger)).body;
      await pushFeed(svc.url, key, feed(officeListing('HOOK1', 'W1'), officeListing('HOOK1', 'W2')));
      // A change that rolls back is not in the log: no event.
      await svc.db
        .transaction(async (trx) => {
          await trx('listings').where({ listing_key: 'HOOK1/W2' }).update({ status: 'withdrawn' });
          throw new Error('rolled back');
        })
        .catch(() => undefined);
      // A change committed by no feed at all (a worker that died after its commit would leave the
      // same): the maintenance task takes it up from the log.
      await svc
        .db('listings')
        .where({ listing_key: 'HOOK1/W1' })
        .update({ status: 'withdrawn', updated_at: svc.db.raw('change_stamp()') });
      await svc.runtime.sweep();
      for (const path of ['/office', '/office-other']) {
        const [got] = await waitFor(`the status change at ${path}`, () => receiver.on(path).length > 0 && receiver.on(path));
        expect(JSON.parse(got.body).data).to.deep.equal({
          feedId: null,
          changes: [{ listingKey: 'HOOK1/W1', office: 'HOOK1', uniqueId: 'W1', from: 'active', to: 'withdrawn' }],
        });
      }
      await svc.runtime.sweep();
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.on('/office'), 'one event, none for the rolled-back change').to.have.length(1);
      expect(receiver.on('/office-stranger'), "another office's key hears nothing").to.have.length(0);
      await call('DELETE', `/v1/webhooks/${mine.endpoint.id}`);
      await call('DELETE', `/v1/webhooks/${theirs.endpoint.id}`, undefined, other);
      await call('DELETE', `/v1/webhooks/${strangers.endpoint.id}`, undefined, stranger);
    });

    it('disables an endpoint failing for 24 hours, abandons what was pending and tells the key’s alert address', async () => {
      const created = await register('/down');
      receiver.plans.set(
        '/down',
        Array.from({ length: 10 }, () => ({ status: 500 })),
      );
      await svc
        .db('webhook_endpoints')
        .where({ id: created.endpoint.id })
        .update({ failing_since: svc.db.raw("now() - interval '25 hours'") });
      const { deliveryId } = (await call('POST', `/v1/webhooks/${created.endpoint.id}/test`)).body;
      const endpoint = await waitFor('the endpoint disabled', async () => {
        const e = await call('GET', `/v1/webhooks/${created.endpoint.id}`);
        return e.body.status === 'disabled' && e.body;
      });
      expect(endpoint.disabledReason).to.include('24 hours');
      expect((await delivery(deliveryId)).status).to.equal('abandoned');
      const mail = await svc.db('notifications').where({ kind: 'webhook_disabled' }).first();
      expect(mail.recipient).to.equal('alerts@agency.example');
      expect(mail.body).to.include(created.endpoint.id);
      expect((await call('POST', `/v1/webhooks/${created.endpoint.id}/test`)).status).to.equal(409);
      const enabled = await call('PATCH', `/v1/webhooks/${created.endpoint.id}`, { enabled: true });
      expect(enabled.body).to.include({ status: 'active', failingSince: null });
      await call('DELETE', `/v1/webhooks/${created.endpoint.id}`);
    });

    it('rotates the secret: for a while both the new and the previous secret sign', async () => {
      const created = await register('/rotated');
      const rotated = await call('POST', `/v1/webhooks/${created.endpoint.id}/rotate-secret`);
      expect(rotated.body.secret).to.not.equal(created.secret);
      const { deliveryId } = (await call('POST', `/v1/webhooks/${created.endpoint.id}/test`)).body;
      await waitFor('delivery', async () => (await delivery(deliveryId)).status === 'delivered');
      const [got] = receiver.on('/rotated');
      expect(String(got.headers['webhook-signature']).split(' ')).to.have.length(2);
      expect((new Webhook(rotated.body.secret).verify(got.body, got.headers as Record<string, string>) as any).type).to.equal('webhook.test');
      expect((new Webhook(created.secret).verify(got.body, got.headers as Record<string, string>) as any).type).to.equal('webhook.test');
      await call('DELETE', `/v1/webhooks/${created.endpoint.id}`);
    });

    it('rotated twice, signs with both earlier secrets until each one’s own 24 hours end, and keeps a bounded number', async () => {
      const created = await register('/rotated-twice');
      const first = await call('POST', `/v1/webhooks/${created.endpoint.id}/rotate-secret`);
      const second = await call('POST', `/v1/webhooks/${created.endpoint.id}/rotate-secret`);
      const secrets = () => svc.db('webhook_endpoints').where({ id: created.endpoint.id }).first('previous_secrets');
      /** Sends a test event and answers which of the given secrets its signature header verifies with. */
      const verifying = async (...candidates: string[]) => {
        const { deliveryId } = (await call('POST', `/v1/webhooks/${created.endpoint.id}/test`)).body;
        await waitFor('delivery', async () => (await delivery(deliveryId)).status === 'delivered');
        const got = receiver.on('/rotated-twice').find((r) => r.headers['webhook-id'] === deliveryId)!;
        return candidates.map((secret) => {
          try {
            new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
            return true;
          } catch {
            return false;
          }
        });
      };
      expect(await verifying(second.body.secret, first.body.secret, created.secret)).to.deep.equal([true, true, true]);
      expect(validatorFor('WebhookSecret')(second.body), JSON.stringify(validatorFor('WebhookSecret').errors)).to.equal(true);
      expect(second.body.previousSecretsValidUntil).to.have.length(2);

      /** Moves the stored end of one earlier secret's grace into the past, as if its 24 hours had passed. */
      const graceOver = async (secret: string) => {
        const { previous_secrets: kept } = await secrets();
        const moved = kept.map((p: any) => (p.secret === secret ? { ...p, until: new Date(Date.now() - 1000).toISOString() } : p));
        await svc
          .db('webhook_endpoints')
          .where({ id: created.endpoint.id })
          .update({ previous_secrets: JSON.stringify(moved) });
      };
      // The first rotation was 24 hours ago, the second one just now: the original secret's grace is over.
      await graceOver(created.secret);
      expect(await verifying(second.body.secret, first.body.secret, created.secret)).to.deep.equal([true, true, false]);

      // Rotations within the grace keep adding signatures up to the bound, then wait for the oldest grace to end.
      for (let i = 0; i < 3; i += 1) expect((await call('POST', `/v1/webhooks/${created.endpoint.id}/rotate-secret`)).status).to.equal(200);
      const refused = await call('POST', `/v1/webhooks/${created.endpoint.id}/rotate-secret`);
      expect(refused.status).to.equal(429);
      expect(refused.body.error).to.match(/already has 4 earlier secrets/);
      expect(Number(refused.headers.get('retry-after'))).to.be.within(86_000, 86_400);
      const bounded = (await secrets()).previous_secrets;
      expect(bounded).to.have.length(4);
      expect(bounded.map((p: any) => p.secret)).to.not.include(created.secret);
      expect(bounded.map((p: any) => p.secret)).to.include(first.body.secret);
      // Once the oldest grace ends, rotating works again.
      await graceOver(first.body.secret);
      expect((await call('POST', `/v1/webhooks/${created.endpoint.id}/rotate-secret`)).status).to.equal(200);
      expect((await secrets()).previous_secrets).to.have.length(4);
      await call('DELETE', `/v1/webhooks/${created.endpoint.id}`);
    });

    it('limits test events per key: past WEBHOOK_TEST_RATE_LIMIT (30) an hour a 429 with Retry-After; other keys and operators go on', async () => {
      const limited = await activeKey(svc.db, ['HOOKRATE']);
      const mine = await call('POST', '/v1/webhooks', { url: `${receiver.url}/rate` }, limited);
      const other = await call('POST', '/v1/webhooks', { url: `${receiver.url}/rate-other` }, limited);
      const test = (id: string, as: string) => call('POST', `/v1/webhooks/${id}/test`, undefined, as);
      for (let i = 0; i < 30; i += 1) expect((await test(i % 2 ? mine.body.endpoint.id : other.body.endpoint.id, limited)).status).to.equal(202);
      // The count is the key's, whichever of its endpoints is tested.
      for (const id of [mine.body.endpoint.id, other.body.endpoint.id]) {
        const refused = await test(id, limited);
        expect(refused.status).to.equal(429);
        expect(refused.body.error).to.equal('too many webhook test requests for this key; the limit is 30 per hour');
        expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 3600);
      }
      const stored = await svc.db('webhook_deliveries').whereIn('endpoint_id', [mine.body.endpoint.id, other.body.endpoint.id]).count({ n: '*' });
      expect(Number(stored[0].n)).to.equal(30);
      // Another key's allowance is its own; operators are not limited.
      const elsewhere = await register('/rate-elsewhere');
      expect((await test(elsewhere.endpoint.id, key)).status).to.equal(202);
      expect((await admin(svc.url, 'POST', `/v1/admin/webhooks/${mine.body.endpoint.id}/test`)).status).to.equal(202);
      for (const id of [mine.body.endpoint.id, other.body.endpoint.id]) await call('DELETE', `/v1/webhooks/${id}`, undefined, limited);
      await call('DELETE', `/v1/webhooks/${elsewhere.endpoint.id}`);
    });

    it("keeps a key's endpoints from every other key; operators see and register any", async () => {
      const created = await register('/mine');
      const other = await activeKey(svc.db, ['ELSEWHERE']);
      for (const [method, path] of [
        ['GET', `/v1/webhooks/${created.endpoint.id}`],
        ['DELETE', `/v1/webhooks/${created.endpoint.id}`],
        ['POST', `/v1/webhooks/${created.endpoint.id}/test`],
        ['GET', `/v1/webhooks/${created.endpoint.id}/deliveries`],
      ] as const) {
        expect((await call(method, path, undefined, other)).status, `${method} ${path}`).to.equal(404);
      }
      expect((await call('GET', '/v1/webhooks', undefined, other)).body.endpoints).to.deep.equal([]);
      const all = (await (await admin(svc.url, 'GET', '/v1/admin/webhooks')).json()) as any;
      expect(all.endpoints.map((e: any) => e.id)).to.include(created.endpoint.id);
      const keyId = (await svc.db('feed_keys').where({ client_name: 'Test CRM' }).orderBy('created_at').first('id')).id;
      const byOperator = await admin(svc.url, 'POST', '/v1/admin/webhooks', { keyId, url: `${receiver.url}/operator`, events: ['feed.failed'] });
      expect(byOperator.status).to.equal(201);
      expect((await call('GET', '/v1/webhooks')).body.endpoints.map((e: any) => e.url)).to.include(`${receiver.url}/operator`);
      expect((await call('POST', '/v1/webhooks', { url: 'ftp://example.com/hook' })).status).to.equal(400);
      expect((await call('POST', '/v1/webhooks', { url: `${receiver.url}/x`, events: ['feed.exploded'] })).status).to.equal(400);
    });

    it("sent only events the API description's webhooks section describes, each matching its payload schema", () => {
      const seen = new Set<string>();
      for (const { body } of receiver.received) {
        const event = JSON.parse(body) as { type: WebhookEventType };
        const name = WEBHOOK_EVENT_SCHEMA[event.type];
        expect(name, event.type).to.be.a('string');
        const validate = validatorFor(name);
        expect(validate(event), `${event.type}: ${JSON.stringify(validate.errors)} in ${body}`).to.equal(true);
        // Nothing sent that the schema leaves out: a receiver's generated types see every field.
        const declared = Object.keys((schemas.find((s) => s.$id === name) as any).properties.data.properties);
        expect(
          Object.keys((event as any).data).filter((k) => !declared.includes(k)),
          event.type,
        ).to.deep.equal([]);
        seen.add(event.type);
      }
      expect([...seen].sort()).to.include.members(['feed.completed', 'listing.archived', 'listing.price_changed', 'listing.status_changed', 'webhook.test']);
    });
  });
}
