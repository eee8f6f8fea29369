import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { expect } from 'chai';
import { purgeFeedBodies } from '../../db/feed-bodies.js';
import { feed } from '../helpers.js';
import { OPERATOR, redisUrl, startTestService, type TestService } from '../service.js';
import { activeKey, admin, officeListing, pushFeed } from './client.js';

/**
 * A feed whose ingestion fails for good (the listings table is away, as in a broken deployment):
 * the integrator sees a plain sentence and is mailed; the operator sees the cause, and a retry
 * from Bull Board or the admin API really runs the feed again.
 */
describe('Feeds that fail for good: what integrators and operators see, and retries that re-run them (PostgreSQL + Redis)', function () {
  this.timeout(60_000);
  let svc: TestService;
  let key: string;
  let queue: Queue;
  before(async () => {
    svc = await startTestService({ database: 'postgres', redis: true, ingestRetry: { attempts: 2, backoffMs: 50 } });
    key = await activeKey(svc.db, ['OFF1'], 'feeds@agency.example');
    queue = new Queue('ingest', { connection: { url: redisUrl }, prefix: svc.queuePrefix });
  });
  after(async () => {
    await queue.close();
    await svc.close();
  });

  const breakStore = () => svc.db.raw('ALTER TABLE listings RENAME TO listings_away');
  const mendStore = () => svc.db.raw('ALTER TABLE listings_away RENAME TO listings');
  const statusOf = async (feedId: string, want: string) => {
    let status = '';
    for (let i = 0; i < 200 && status !== want; i += 1) {
      status = (await svc.db('feed_events').where({ id: feedId }).first('status')).status;
      if (status !== want) await new Promise((r) => setTimeout(r, 50));
    }
    return status;
  };
  const failedFeed = async (uniqueId: string) => {
    await breakStore();
    try {
      const res = await pushFeed(svc.url, key, feed(officeListing('OFF1', uniqueId)));
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).to.equal(202);
      expect(body).to.include({ status: 'failed', statusUrl: `/v1/feeds/${body.feedId}` });
      return body as { feedId: string; error: string };
    } finally {
      await mendStore();
    }
  };

  it("tells the integrator in a plain sentence, mails the key's alert address, and shows operators the cause", async () => {
    const { feedId, error } = await failedFeed('F1');
    for (const text of [error, (await (await fetch(`${svc.url}/v1/feeds/${feedId}`, { headers: { authorization: `Bearer ${key}` } })).json()).error]) {
      expect(text).to.match(/^ingestion failed after several attempts because of a problem on our side/);
      expect(text, 'no SQL, relation names or stack text').not.to.match(/listings_away|relation|select|insert|\bat \w|\.js:/i);
    }
    const feeds = await (await admin(svc.url, 'GET', '/v1/admin/feeds?status=failed')).json();
    const shown = feeds.feeds.find((f: { feedId: string }) => f.feedId === feedId);
    expect(shown.errorDetail).to.match(/listings/);
    // The mail is sent from the outbox just after the feed is marked failed, and the answer may come first.
    let mail = await svc.db('notifications').where({ kind: 'feed_failed' }).first();
    for (let i = 0; i < 100 && mail?.status !== 'sent'; i += 1) {
      await new Promise((r) => setTimeout(r, 50));
      mail = await svc.db('notifications').where({ kind: 'feed_failed' }).first();
    }
    expect(mail).to.include({ recipient: 'feeds@agency.example', status: 'sent' });
    expect(mail.body).to.contain(feedId);
    const outbox = join(svc.dataDir, 'outbox');
    expect(
      readdirSync(outbox)
        .map((f) => readFileSync(join(outbox, f), 'utf8'))
        .some((m) => m.includes('could not be processed') && m.includes(feedId)),
    ).to.equal(true);
    // Once its body is past the retention and deleted, it cannot be run again, and the operator is told why.
    await svc
      .db('feed_events')
      .where({ id: feedId })
      .update({ created_at: svc.db.raw("now() - interval '400 days'") });
    expect(await purgeFeedBodies(svc.db, 30)).to.be.at.least(1);
    const retry = await admin(svc.url, 'POST', `/v1/admin/feeds/${feedId}/retry`);
    expect(retry.status).to.equal(409);
    expect((await retry.json()).error).to.match(/body was deleted at .* after the retention period/);
  });

  it('a retry from Bull Board runs the failed feed again: the event is done, the listing stored, the job returns the summary', async () => {
    const { feedId } = await failedFeed('F2');
    const res = await fetch(`${svc.url}/admin/queues/api/queues/ingest/ingest-${feedId}/retry`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${OPERATOR}` },
    });
    expect(res.status, await res.text()).to.equal(204);
    expect(await statusOf(feedId, 'done')).to.equal('done');
    expect(await svc.db('listings').where({ listing_key: 'OFF1/F2' }).first()).to.have.property('status', 'active');
    let job = await queue.getJob(`ingest-${feedId}`);
    for (let i = 0; i < 50 && !job?.returnvalue; i += 1) {
      await new Promise((r) => setTimeout(r, 50));
      job = await queue.getJob(`ingest-${feedId}`);
    }
    expect(job!.returnvalue).to.deep.include({ feedId, status: 'done', counts: { parsed: 1, valid: 1, invalid: 0 } });
    expect(job!.progress).to.deep.equal({ parsed: 1, applied: 1, invalid: 0 });
    const status = await (await fetch(`${svc.url}/v1/feeds/${feedId}`, { headers: { authorization: `Bearer ${key}` } })).json();
    expect(status).to.include({ status: 'done', error: null, progress: null });
  });

  it('POST /v1/admin/feeds/{feedId}/retry runs a failed feed again; 409 for one that is not failed, 404 for none', async () => {
    const { feedId } = await failedFeed('F3');
    const res = await admin(svc.url, 'POST', `/v1/admin/feeds/${feedId}/retry`);
    expect(await res.json()).to.deep.equal({ feedId, status: 'queued' });
    expect(await statusOf(feedId, 'done')).to.equal('done');
    expect(await svc.db('listings').where({ listing_key: 'OFF1/F3' }).first()).to.have.property('status', 'active');
    const again = await admin(svc.url, 'POST', `/v1/admin/feeds/${feedId}/retry`);
    expect(again.status).to.equal(409);
    expect((await again.json()).error).to.match(/is done; only failed feeds can be retried/);
    expect((await admin(svc.url, 'POST', '/v1/admin/feeds/00000000-0000-4000-8000-000000000000/retry')).status).to.equal(404);
    const audit = await (await admin(svc.url, 'GET', '/v1/admin/audit?action=feed.retry')).json();
    expect(audit.entries.map((e: { target: string }) => e.target)).to.include(feedId);
  });

  it('the sweep re-queues a feed left running whose job had already failed (the database was away when it gave up)', async () => {
    // As left by an outage longer than the retries: the job failed, the event could not be marked.
    const { feedId } = await failedFeed('F4');
    await svc
      .db('feed_events')
      .where({ id: feedId })
      .update({ status: 'running', error: null, updated_at: svc.db.raw("now() - interval '10 minutes'") });
    expect(await (await queue.getJob(`ingest-${feedId}`))!.getState()).to.equal('failed');
    await svc.runtime.sweep();
    expect(await statusOf(feedId, 'done')).to.equal('done');
    expect(await svc.db('listings').where({ listing_key: 'OFF1/F4' }).first()).to.have.property('status', 'active');
  });
});
