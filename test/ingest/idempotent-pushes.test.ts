import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { storeFeedEvent } from '../../db/feed-bodies.js';
import { storePush } from '../../db/feed-dedupe.js';
import type { FeedEventInput } from '../../db/feed-events.js';
import { feed } from '../helpers.js';
import { startTestService, type TestService } from '../service.js';
import { AUD, activeKey, officeListing } from './client.js';

for (const setup of [
  { name: 'PostgreSQL with BullMQ workers', options: { database: 'postgres', redis: true } },
  { name: 'the embedded default', options: { database: 'pglite' } },
] as const) {
  describe(`Idempotent pushes: Idempotency-Key, and a repeat of a feed still being ingested (${setup.name})`, function () {
    this.timeout(60_000);
    let svc: TestService;
    let key: string;
    let keyId: string;
    before(async () => {
      svc = await startTestService(setup.options);
      key = await activeKey(svc.db, ['IDEM1']);
      keyId = (await svc.db('feed_keys').orderBy('created_at', 'desc').first('id')).id;
    });
    after(() => svc.close());

    const push = (xml: string, headers: Record<string, string> = {}, options: { mode?: string; url?: string } = {}) =>
      fetch(`${options.url ?? svc.url}/v1/feeds`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ xml, mode: options.mode, context: AUD }),
      });
    /** What POST /v1/feeds stores for an incremental REAXML push of IDEM1's key. */
    const apiFeedInput = (): FeedEventInput => ({
      source: 'api',
      keyId,
      officeScope: ['IDEM1'],
      alertEmail: null,
      format: 'reaxml',
      mode: 'incremental',
      context: { ...AUD },
      bodyKind: 'text',
    });
    const feedCount = async () => Number((await svc.db('feed_events').where({ key_id: keyId }).count({ n: '*' }))[0].n);

    it('answers the same key and body with the first feed (same feedId and result), never a second feed event', async () => {
      const idem = randomUUID();
      const xml = feed(officeListing('IDEM1', 'A1'));
      const first = await push(xml, { 'idempotency-key': idem });
      const firstBody = (await first.json()) as any;
      expect(first.status).to.equal(200);
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
      const before = await feedCount();
      const again = await push(xml, { 'idempotency-key': idem });
      const againBody = (await again.json()) as any;
      expect(again.status).to.equal(200);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(againBody).to.deep.equal(firstBody);
      expect(await feedCount()).to.equal(before);
    });

    it('refuses the same key with another body, or the same body in another mode, with 409 and stores nothing', async () => {
      const idem = randomUUID();
      const first = (await (await push(feed(officeListing('IDEM1', 'B1')), { 'idempotency-key': idem })).json()) as any;
      const before = await feedCount();
      const other = await push(feed(officeListing('IDEM1', 'B2')), { 'idempotency-key': idem });
      const body = (await other.json()) as { error: string };
      expect(other.status).to.equal(409);
      expect(body.error).to.include('Idempotency-Key').and.to.include(first.feedId);
      const otherMode = await push(feed(officeListing('IDEM1', 'B1')), { 'idempotency-key': idem }, { mode: 'full' });
      expect(otherMode.status).to.equal(409);
      expect(await feedCount()).to.equal(before);
      expect(await svc.db('listings').where({ listing_key: 'IDEM1/B2' }).first()).to.equal(undefined);
    });

    it('gives pushes sent at once under one key a single feed', async () => {
      const idem = randomUUID();
      const xml = feed(officeListing('IDEM1', 'C1'), officeListing('IDEM1', 'C2'));
      const before = await feedCount();
      // Four: a key's uploads in flight at once (FEED_UPLOADS_PER_KEY); one more would be a 429.
      const answers = await Promise.all(Array.from({ length: 4 }, () => push(xml, { 'idempotency-key': idem })));
      const bodies = (await Promise.all(answers.map((r) => r.json()))) as any[];
      expect(answers.map((r) => r.status)).to.deep.equal([200, 200, 200, 200]);
      expect(new Set(bodies.map((b) => b.feedId)).size).to.equal(1);
      expect(await feedCount()).to.equal(before + 1);
    });

    it('stores one feed for identical pushes without the header checked at the same moment (one chunk or several)', async () => {
      const input = apiFeedInput();
      // Bodies of one chunk (most pushes) and of two (over 1 MB): each stored by its own path.
      const bodies = [
        feed(officeListing('IDEM1', 'F1')),
        feed(officeListing('IDEM1', 'F2')),
        `${feed(officeListing('IDEM1', 'F3'))}${' '.repeat(1100 * 1024)}`,
      ];
      for (const [round, xml] of [...bodies, ...bodies].entries()) {
        const before = await feedCount();
        const stored = await Promise.all(
          Array.from({ length: 4 }, () =>
            storePush(
              svc.db,
              input,
              async function* () {
                yield Buffer.from(xml);
              },
              null,
            ),
          ),
        );
        expect(new Set(stored.map((s) => s.event.id)).size, `round ${round}`).to.equal(1);
        expect(
          stored.filter((s) => s.repeat === 'running'),
          `round ${round}`,
        ).to.have.length(3);
        expect(await feedCount(), `round ${round}`).to.equal(before + 1);
        // Finished: the next round's same body is a feed of its own again.
        await svc.db('feed_events').where({ id: stored[0].event.id }).update({ status: 'failed', error: 'test over' });
      }
    });

    if (setup.options.database === 'postgres') {
      it('answers identical pushes without the header sent at once with one feed: the same feedId, three of them replayed', async () => {
        // A web role only: the feed stays queued, as one does while a worker is busy.
        const web = await startTestService({ ...setup.options, db: svc.db, consume: false, env: { FEED_SYNC_WAIT_MS: '0' } });
        try {
          for (const id of ['G1', 'G2', 'G3', 'G4', 'G5']) {
            const xml = feed(officeListing('IDEM1', id));
            const before = await feedCount();
            const answers = await Promise.all(Array.from({ length: 4 }, () => push(xml, {}, { url: web.url })));
            const bodies = (await Promise.all(answers.map((r) => r.json()))) as any[];
            expect(answers.map((r) => r.status)).to.deep.equal([202, 202, 202, 202]);
            expect(new Set(bodies.map((b) => b.feedId)).size, id).to.equal(1);
            expect(
              answers.filter((r) => r.headers.get('idempotent-replayed') === 'true'),
              id,
            ).to.have.length(3);
            expect(await feedCount(), id).to.equal(before + 1);
          }
        } finally {
          await web.close();
          await svc.db('feed_events').where({ key_id: keyId }).whereIn('status', ['queued', 'running']).update({ status: 'failed', error: 'test over' });
        }
      });
    }

    it('lets a key be used again after 24 hours, and names a malformed key', async () => {
      const idem = randomUUID();
      const first = (await (await push(feed(officeListing('IDEM1', 'D1')), { 'idempotency-key': idem })).json()) as any;
      await svc
        .db('feed_events')
        .where({ id: first.feedId })
        .update({ created_at: svc.db.raw("now() - interval '25 hours'") });
      const later = await push(feed(officeListing('IDEM1', 'D2')), { 'idempotency-key': idem });
      const laterBody = (await later.json()) as any;
      expect(later.status).to.equal(200);
      expect(laterBody.feedId).to.not.equal(first.feedId);
      for (const bad of ['', 'has space', 'x'.repeat(256), 'naïve']) {
        const res = await push(feed(officeListing('IDEM1', 'D3')), { 'idempotency-key': bad });
        expect(res.status, JSON.stringify(bad)).to.equal(400);
        expect(((await res.json()) as { error: string }).error).to.include('Idempotency-Key');
      }
    });

    it('answers a push without the header whose body a feed of the same key is still ingesting with that feed', async () => {
      const xml = feed(officeListing('IDEM1', 'E1'));
      // A feed stored and queued but not yet run, exactly as POST /v1/feeds stores it.
      const open = await storeFeedEvent(
        svc.db,
        apiFeedInput(),
        (async function* () {
          yield Buffer.from(xml);
        })(),
      );
      // A web role that does not wait for the outcome.
      const web = await startTestService({ ...setup.options, db: svc.db, consume: false, env: { FEED_SYNC_WAIT_MS: '0' } });
      try {
        const before = await feedCount();
        const res = await push(xml, {}, { url: web.url });
        const body = (await res.json()) as any;
        expect(res.status).to.equal(202);
        expect(body.feedId).to.equal(open.id);
        expect(res.headers.get('idempotent-replayed')).to.equal('true');
        expect(await feedCount()).to.equal(before);
        // Another body, or the same one in another mode, is a feed of its own.
        const other = (await (await push(feed(officeListing('IDEM1', 'E2')), {}, { url: web.url })).json()) as any;
        expect(other.feedId).to.not.equal(open.id);
        const full = (await (await push(xml, {}, { url: web.url, mode: 'full' })).json()) as any;
        expect(full.feedId).to.not.equal(open.id);
      } finally {
        await web.close();
        await svc.db('feed_events').where({ id: open.id }).update({ status: 'failed', error: 'test over' });
      }
      // Once that feed is finished, the same body is a new feed.
      const after = (await (await push(xml)).json()) as any;
      expect(after.feedId).to.not.equal(open.id);
    });
  });
}
