import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { eventually, feed } from '../helpers.js';
import { startTestService, type TestService } from '../service.js';
import { type SmtpSink, startSmtpSink } from '../smtp-sink.js';
import { activeKey, admin, officeListing, pushFeed } from './client.js';

const listings = (office: string, ids: string[], modTime?: string) => ids.map((id) => officeListing(office, id, { modTime }));
const ids = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `L${i + from}`);

describe('mode=full: reconcile, circuit breaker, quarantine and notifications (PostgreSQL + Redis + SMTP)', function () {
  this.timeout(30_000);
  let svc: TestService;
  let smtp: SmtpSink;
  let key: string;
  before(async () => {
    smtp = await startSmtpSink();
    svc = await startTestService({
      database: 'postgres',
      redis: true,
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'feeds@service.example', CIRCUIT_BREAKER_MIN: '2', CIRCUIT_BREAKER_RATIO: '0.2' },
    });
    key = await activeKey(svc.db, ['OFF1', 'OFF2', 'OFF3'], 'alerts@agency.example');
  });
  after(async () => {
    await svc.close();
    await smtp.close();
  });

  const push = async (xml: string, mode: 'full' | 'incremental' = 'full') => {
    const res = await pushFeed(svc.url, key, xml, { mode });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).to.equal(200);
    expect(validatorFor('IngestionResult')(body), JSON.stringify(validatorFor('IngestionResult').errors)).to.equal(true);
    return body;
  };
  const statuses = async (office: string) =>
    Object.fromEntries((await svc.db('listings').where({ office }).orderBy('listing_key').select('unique_id', 'status')).map((r) => [r.unique_id, r.status]));
  /** Mail goes out just after the result is stored, so it may trail the HTTP answer a little. */
  const mailTo = async (kind: RegExp, expected: number) => {
    await eventually(`${expected} mails matching ${kind}`, () => smtp.messages.filter((m) => kind.test(m.raw)).length >= expected);
    await new Promise((r) => setTimeout(r, 100)); // and no more than expected arrive
    return smtp.messages.filter((m) => kind.test(m.raw));
  };

  it('archives the listings of the feed offices that a full feed no longer carries, and restores one that reappears', async () => {
    await push(feed(...listings('OFF1', ids(10)), ...listings('OFF2', ['X'])), 'incremental');
    const res = await push(feed(...listings('OFF1', ids(9))));
    expect(res.reconcile).to.deep.include({ status: 'applied', archived: 1 });
    expect(res.reconcile.offices).to.deep.equal([{ office: 'OFF1', present: 9, nonArchived: 10, absent: 1, archived: 1, tripped: false, quarantineId: null }]);
    expect((await statuses('OFF1')).L9).to.equal('archived');
    expect(await statuses('OFF2'), 'an office without listings in the feed is never touched').to.deep.equal({ X: 'active' });

    const back = await push(feed(...listings('OFF1', ids(10))));
    expect(back.upserts.find((u: { listingKey: string }) => u.listingKey === 'OFF1/L9')).to.deep.equal({ listingKey: 'OFF1/L9', action: 'updated' });
    expect(back.summary).to.deep.include({ updated: 1, unchanged: 9 });
    expect((await statuses('OFF1')).L9).to.equal('active');
  });

  it('counts invalid listings as present: a key that appeared is never archived', async () => {
    const invalid = '<residential modTime="2024-03-01-10:00:00" status="current"><agentID>OFF1</agentID><uniqueID>L0</uniqueID></residential>';
    // L0 without an address merged onto the stored L0 is valid; L1 with a broken status is invalid yet present.
    const broken = '<residential modTime="2024-03-01-10:00:00" status="bogus"><agentID>OFF1</agentID><uniqueID>L1</uniqueID></residential>';
    const res = await push(feed(invalid, broken, ...listings('OFF1', ids(8, 2))));
    expect(res.counts.invalid).to.equal(1);
    expect(res.reconcile.archived).to.equal(0);
    expect((await statuses('OFF1')).L1).to.equal('active');
  });

  it('trips the breaker on a mass delete: nothing archived, a quarantine item, one mail; resolve and apply', async () => {
    smtp.messages.length = 0;
    const res = await push(feed(...listings('OFF1', ids(3))));
    expect(res.reconcile.status).to.equal('tripped');
    const [office] = res.reconcile.offices;
    expect(office).to.deep.include({ office: 'OFF1', present: 3, nonArchived: 10, absent: 7, archived: 0, tripped: true });
    expect(Object.values(await statuses('OFF1')).filter((s) => s === 'archived')).to.have.length(0);

    const open = await (await admin(svc.url, 'GET', '/v1/admin/quarantine')).json();
    const item = open.items.find((i: { id: string }) => i.id === office.quarantineId);
    expect(validatorFor('QuarantineItem')(item), JSON.stringify(validatorFor('QuarantineItem').errors)).to.equal(true);
    expect(item).to.deep.include({ office: 'OFF1', archiveCount: 7, nonArchivedCount: 10, resolved: false });
    expect(item.keys).to.deep.equal(
      ids(7, 3)
        .map((id) => `OFF1/${id}`)
        .sort(),
    );

    // The alert went to the key's address, once; a second trip within the hour sends no second mail.
    await push(feed(...listings('OFF1', ids(3))));
    const trips = await mailTo(/Subject: .*held for review/, 1);
    expect(trips).to.have.length(1);
    expect(trips[0].to).to.deep.equal(['alerts@agency.example']);
    expect(trips[0].from).to.equal('feeds@service.example');
    expect(trips[0].raw).to.contain('office OFF1: 7 of 10 listings would have been archived');

    // One of the held listings is updated after the trip: apply must leave it alone.
    await push(feed(officeListing('OFF1', 'L4', { modTime: '2024-05-01-10:00:00', price: 1 })), 'incremental');
    const resolved = await admin(svc.url, 'POST', `/v1/admin/quarantine/${item.id}/resolve`, { action: 'apply' });
    expect(resolved.status).to.equal(200);
    expect(await resolved.json()).to.deep.include({ resolved: true, resolution: 'applied', appliedCount: 6 });
    const now = await statuses('OFF1');
    expect(now.L4).to.equal('active');
    expect(
      ids(7, 3)
        .filter((id) => id !== 'L4')
        .every((id) => now[id] === 'archived'),
    ).to.equal(true);

    const remaining = await (await admin(svc.url, 'GET', '/v1/admin/quarantine')).json();
    expect(remaining.items.map((i: { id: string }) => i.id)).not.to.include(item.id);
    const all = await (await admin(svc.url, 'GET', '/v1/admin/quarantine?includeResolved=true')).json();
    expect(all.items.map((i: { id: string }) => i.id)).to.include(item.id);
  });

  it('resolve without apply only marks the item reviewed; unknown ids are 404; admin routes need the operator', async () => {
    const res = await push(feed(...listings('OFF3', ids(10))), 'incremental');
    expect(res.summary.inserted).to.equal(10);
    const tripped = await push(feed(...listings('OFF3', ids(1))));
    const id = tripped.reconcile.offices[0].quarantineId;
    // Every listing the trip would archive, paged, each as it is now; one changed since is marked
    // (applying the archive leaves it; one re-sent unchanged was not written, so it is not).
    await push(feed(officeListing('OFF3', 'L5', { modTime: '2024-03-02-10:00:00', headline: 'Changed since the trip' })), 'incremental');
    const first = await (await admin(svc.url, 'GET', `/v1/admin/quarantine/${id}/listings?limit=4`)).json();
    expect(validatorFor('HeldListingPage')(first), JSON.stringify(validatorFor('HeldListingPage').errors)).to.equal(true);
    expect(first.total).to.equal(9);
    expect(first.nextOffset).to.equal(4);
    const rest = await (await admin(svc.url, 'GET', `/v1/admin/quarantine/${id}/listings?limit=10&offset=4`)).json();
    const held = [...first.listings, ...rest.listings];
    expect(held.map((l: { uniqueId: string }) => l.uniqueId).sort()).to.deep.equal(ids(9, 1).sort());
    expect(held.filter((l: { writtenSince: boolean }) => l.writtenSince).map((l: { uniqueId: string }) => l.uniqueId)).to.deep.equal(['L5']);
    expect(held.every((l: { status: string; office: string }) => l.status === 'active' && l.office === 'OFF3')).to.equal(true);
    expect((await admin(svc.url, 'GET', '/v1/admin/quarantine/00000000-0000-4000-8000-000000000000/listings')).status).to.equal(404);
    // Until its trip is resolved the feed needs a look: in the feed list (found by its id) and the dashboard.
    const feedRow = async () => (await (await admin(svc.url, 'GET', `/v1/admin/feeds?feedId=${tripped.feedId}`)).json()).feeds;
    const needing = async (value: 'true' | 'false') =>
      (await (await admin(svc.url, 'GET', `/v1/admin/feeds?needsLook=${value}&limit=200`)).json()).feeds.map((f: { feedId: string }) => f.feedId);
    const problems = async () => (await (await admin(svc.url, 'GET', '/v1/admin/stats')).json()).feeds.last24h.problems;
    const [before] = await feedRow();
    expect(before).to.deep.include({ feedId: tripped.feedId, outcome: 'tripped', needsLook: true, clientName: 'Test CRM' });
    expect(await needing('true')).to.include(tripped.feedId);
    const problemsBefore = await problems();
    const resolved = await (await admin(svc.url, 'POST', `/v1/admin/quarantine/${id}/resolve`)).json();
    expect(resolved).to.deep.include({ resolved: true, resolution: 'reviewed', appliedCount: null });
    // Resolved: still tripped (what happened), but done with.
    expect(await feedRow()).to.have.length(1);
    expect((await feedRow())[0]).to.deep.include({ outcome: 'tripped', needsLook: false });
    expect(await needing('true')).to.not.include(tripped.feedId);
    expect(await needing('false')).to.include(tripped.feedId);
    expect(await problems()).to.equal(problemsBefore - 1);
    expect((await admin(svc.url, 'GET', '/v1/admin/feeds?feedId=not-a-uuid')).status).to.equal(400);
    expect(Object.values(await statuses('OFF3')).every((s) => s === 'active')).to.equal(true);
    expect((await admin(svc.url, 'POST', '/v1/admin/quarantine/00000000-0000-4000-8000-000000000000/resolve')).status).to.equal(404);
    expect((await admin(svc.url, 'POST', `/v1/admin/quarantine/${id}/resolve`, { action: 'delete' })).status).to.equal(400);
    expect((await admin(svc.url, 'GET', '/v1/admin/quarantine?includeResolved=maybe')).status).to.equal(400);
    expect((await fetch(`${svc.url}/v1/admin/quarantine`)).status).to.equal(401);
    expect((await fetch(`${svc.url}/v1/admin/quarantine/${id}/resolve`, { method: 'POST' })).status).to.equal(401);
  });

  it('a feed that is not well-formed never archives, and its sender is told by mail', async () => {
    smtp.messages.length = 0;
    const res = await pushFeed(svc.url, key, `<propertyList>${officeListing('OFF1', 'L0')}<residential>`, { mode: 'full' });
    expect(res.status).to.equal(400);
    expect(Object.values(await statuses('OFF1')).filter((s) => s !== 'archived')).to.have.length.greaterThan(1);
    const event = await svc.db('feed_events').orderBy('created_at', 'desc').first();
    expect(event.result.reconcile).to.deep.include({ status: 'skipped', archived: 0 });
    const mails = await mailTo(/could not be read/, 1);
    expect(mails).to.have.length(1);
    expect(mails[0].raw).to.match(/not well-formed/);
  });

  it('mails the sender about invalid listings, listing each problem, at most once per key and hour', async () => {
    smtp.messages.length = 0;
    const fresh = await activeKey(svc.db, ['OFF2'], 'other@agency.example');
    const invalid = feed('<residential modTime="2024-03-01-10:00:00" status="current"><agentID>OFF2</agentID><uniqueID>NEW</uniqueID></residential>');
    expect((await pushFeed(svc.url, fresh, invalid)).status).to.equal(200);
    expect((await pushFeed(svc.url, fresh, invalid)).status).to.equal(200);
    const mails = await mailTo(/were not stored/, 1);
    expect(mails).to.have.length(1);
    expect(mails[0].to).to.deep.equal(['other@agency.example']);
    expect(mails[0].raw).to.contain('missing_address');
  });
});
