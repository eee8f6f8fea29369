import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import { expect } from 'chai';
import { readFeedBody } from '../../db/feed-bodies.js';
import { CREDENTIAL_MASK, scrubCredentials } from '../../pipeline/reaxml/scrub-credentials.js';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { AU_CONTEXT } from '../helpers.js';
import { redisUrl, startTestService, type TestService } from '../service.js';
import { activeKey, officeListing } from './client.js';

const SECRET = 'hunter2-Ftp!';
const withCredentials = (listings: string) =>
  `<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE propertyList SYSTEM "http://reaxml.realestate.com.au/propertyList.dtd">\n<!-- exported -->\n` +
  `<propertyList date="2024-03-01-10:00:00" username="agency_ftp" password='${SECRET}'>\n${listings}\n</propertyList>`;

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of chunks) out.push(c);
  return Buffer.concat(out);
}
async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('Stored feed bodies: credentials masked, kept for FEED_BODY_RETENTION_DAYS, periodic work on the board', function () {
  this.timeout(60_000);

  describe('masking the root credentials (pure)', () => {
    it('masks username and password in the root tag, whatever the chunking or encoding, and leaves every other byte', async () => {
      const text = withCredentials(officeListing('OFF1', 'A').replace('Nice.', 'Your password="kept" is in the text'));
      const expected = text.replace('username="agency_ftp"', `username="${CREDENTIAL_MASK}"`).replace(`password='${SECRET}'`, `password='${CREDENTIAL_MASK}'`);
      for (const size of [1, 7, 64, 1 << 20]) {
        expect((await collect(scrubCredentials(pieces(Buffer.from(text), size)))).toString(), `chunks of ${size}`).to.equal(expected);
      }
      const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
      expect((await collect(scrubCredentials(pieces(le, 5)))).subarray(2).toString('utf16le')).to.equal(expected);
      const be = Buffer.from(le).swap16();
      expect(
        Buffer.from(await collect(scrubCredentials(pieces(be, 3))))
          .swap16()
          .subarray(2)
          .toString('utf16le'),
      ).to.equal(expected);
      const plain = Buffer.from(`<propertyList>${officeListing('OFF1', 'A')}</propertyList>`);
      expect((await collect(scrubCredentials(pieces(plain, 9)))).equals(plain)).to.equal(true);
    });

    it('the dry run warns credentials_in_feed, with the listings valid as ever', async () => {
      const result = await validateFeed(withCredentials(officeListing('OFF1', 'A')), AU_CONTEXT);
      expect(result.counts.valid).to.equal(1);
      const warning = result.issues.find((i) => i.code === 'credentials_in_feed');
      expect(warning).to.deep.include({ level: 'warning', listingIndex: null, path: '/propertyList/@username' });
      expect(warning!.message).to.match(/username and password.*masked.*feed key/);
      expect(JSON.stringify(result)).not.to.contain(SECRET);
    });
  });

  describe('on PostgreSQL with BullMQ', () => {
    let svc: TestService;
    let key: string;
    let maintenance: Queue;
    before(async () => {
      svc = await startTestService({ database: 'postgres', redis: true, maintenanceEveryMs: 400, env: { FEED_BODY_RETENTION_DAYS: '30' } });
      key = await activeKey(svc.db, ['OFF1']);
      maintenance = new Queue('maintenance', { connection: { url: redisUrl }, prefix: svc.queuePrefix });
    });
    after(async () => {
      await maintenance.close();
      await svc.close();
    });

    const push = (body: string, raw: boolean) =>
      fetch(raw ? `${svc.url}/v1/feeds?currency=AUD` : `${svc.url}/v1/feeds`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': raw ? 'application/xml' : 'application/json' },
        body: raw ? body : JSON.stringify({ xml: body, context: { currency: 'AUD' } }),
      });

    it('stores a feed with credentials without them (raw and JSON bodies); size and sha256 are of what is stored', async () => {
      for (const raw of [true, false]) {
        const res = await push(withCredentials(officeListing('OFF1', raw ? 'RAW' : 'JSON')), raw);
        const body = await res.json();
        expect(res.status, JSON.stringify(body)).to.equal(200);
        expect(body.issues.map((i: { code: string }) => i.code)).to.include('credentials_in_feed');
        const stored = await collect(readFeedBody(svc.db, body.feedId));
        expect(stored.toString()).not.to.contain(SECRET);
        expect(stored.toString()).not.to.contain('agency_ftp');
        expect(stored.toString()).to.contain(`password='${CREDENTIAL_MASK}'`);
        const event = await svc.db('feed_events').where({ id: body.feedId }).first();
        expect(Number(event.body_bytes)).to.equal(stored.length);
        expect(event.body_sha256).to.equal(createHash('sha256').update(stored).digest('hex'));
        expect(JSON.stringify(event)).not.to.contain(SECRET);
      }
    });

    it('schedules the periodic work as job schedulers on the maintenance queue, once however many workers start', async () => {
      const second = await startTestService({ database: 'postgres', redis: true, db: svc.db, queuePrefix: svc.queuePrefix, maintenanceEveryMs: 400 });
      try {
        const schedulers = (await maintenance.getJobSchedulers()).map((s) => s.key ?? s.name).sort();
        expect(schedulers).to.deep.equal([
          'purge-alerts',
          'purge-change-log',
          'purge-feed-bodies',
          'purge-leads',
          'refresh-stale-directory',
          'release-unacknowledged-leads',
          'requeue-lost-feeds',
          'requeue-lost-leads',
          'send-alerts',
          'send-due-webhooks',
          'send-notifications',
          'sequence-changes',
        ]);
      } finally {
        await second.stop();
      }
    });

    it('purges bodies past the retention, keeping the event and its result; a feed not finished keeps its body', async () => {
      const old = await (await push(withCredentials(officeListing('OFF1', 'OLD')), true)).json();
      await svc
        .db('feed_events')
        .where({ id: old.feedId })
        .update({ created_at: svc.db.raw("now() - interval '31 days'") });
      // An unfinished one of the same age (its job lost) keeps its body for the retry.
      const waiting = await (await push(withCredentials(officeListing('OFF1', 'WAIT')), true)).json();
      await svc
        .db('feed_events')
        .where({ id: waiting.feedId })
        .update({ status: 'queued', created_at: svc.db.raw("now() - interval '31 days'") });
      let purgedAt = null;
      for (let i = 0; i < 100 && !purgedAt; i += 1) {
        purgedAt = (await svc.db('feed_events').where({ id: old.feedId }).first('body_purged_at')).body_purged_at;
        if (!purgedAt) await new Promise((r) => setTimeout(r, 100));
      }
      expect(purgedAt, 'purged by the scheduled task').not.to.equal(null);
      expect(
        await svc
          .db('feed_event_chunks')
          .where({ feed_id: old.feedId })
          .count({ n: '*' })
          .then(([r]) => Number(r.n)),
      ).to.equal(0);
      const status = await (await fetch(`${svc.url}/v1/feeds/${old.feedId}`, { headers: { authorization: `Bearer ${key}` } })).json();
      expect(status).to.include({ status: 'done' });
      expect(status.result.upserts).to.deep.equal([{ listingKey: 'OFF1/OLD', action: 'inserted' }]);
      expect(
        await svc
          .db('feed_event_chunks')
          .where({ feed_id: waiting.feedId })
          .count({ n: '*' })
          .then(([r]) => Number(r.n)),
      ).to.be.greaterThan(0);
      const runs = await maintenance.getJobs(['completed'], 0, 200);
      expect(
        runs.some((j) => j.name === 'purge-feed-bodies' && (j.returnvalue as { purged: number }).purged >= 1),
        'the run and its result are on the queue',
      ).to.equal(true);
    });
  });
});
