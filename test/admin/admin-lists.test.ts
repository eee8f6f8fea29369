import { expect } from 'chai';
import { eventually, feed } from '../helpers.js';
import { activeKey, admin, listingWithoutAddress, officeListing, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';

/** The admin API behind the console: lists sorted, filtered and paged; keys' offices and last use; one listing's review; leads routed again; refusals; history. */
describe('Operator API: sorted lists, key offices and last use, listing review, lead re-routing, refusals and history (PostgreSQL)', function () {
  this.timeout(30_000);
  let svc: TestService;
  let keyId: string;
  let secret: string;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await admin(svc.url, method, path, body);
    return { status: res.status, body: await res.json() };
  };
  const enquire = (uniqueId: string, email = 'jo@home.example') =>
    fetch(`${svc.url}/v1/leads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ listing: { office: 'OFF1', uniqueId }, contact: { email, message: 'Still available?' }, consent: true }),
    });

  before(async () => {
    // Five enquiries an hour from one address: the sixth is refused as rate-limited.
    svc = await startTestService({ database: 'postgres', env: { LEAD_RATE_LIMIT: '5' } });
    secret = await activeKey(svc.db, ['OFF1']);
    keyId = (await svc.db('feed_keys').first('id')).id;
    const agent = (id: string, name: string) =>
      officeListing('OFF1', id, { price: 100000 * id.length }).replace('<headline>', `<listingAgent id="1"><name>${name}</name></listingAgent><headline>`);
    expect((await pushFeed(svc.url, secret, feed(agent('A', 'Ann Smith'), agent('BB', 'Bob Jones'), agent('CCC', 'Cara Lee')))).status).to.equal(200);
    const withdrawn = officeListing('OFF1', 'BB', { status: 'withdrawn', modTime: '2024-04-01-10:00:00' });
    expect((await pushFeed(svc.url, secret, feed(withdrawn, listingWithoutAddress('OFF1', 'NOADDR')))).status).to.equal(200);
  });
  after(() => svc.close());

  it('sorts every list by each of its names, a leading - descending, and refuses an unknown sort naming the parameter', async () => {
    const keys = async (sort: string) => (await call('GET', `/v1/admin/listings?sort=${sort}`)).body.listings.map((l: { uniqueId: string }) => l.uniqueId);
    expect(await keys('key')).to.deep.equal(['A', 'BB', 'CCC']);
    expect(await keys('-key')).to.deep.equal(['CCC', 'BB', 'A']);
    expect((await keys('status'))[0]).to.not.equal('BB');
    expect((await keys('-status'))[0]).to.equal('BB');
    const feeds = (await call('GET', '/v1/admin/feeds?sort=-invalid')).body.feeds;
    expect(feeds.map((f: { counts: { invalid: number } }) => f.counts.invalid)).to.deep.equal([1, 0]);
    expect((await call('GET', '/v1/admin/feeds?sort=received')).body.feeds[0].counts.invalid).to.equal(0);
    expect((await call('GET', '/v1/admin/quarantine?includeResolved=true&sort=-archive&limit=10')).body).to.deep.equal({
      total: 0,
      items: [],
      nextOffset: null,
    });
    for (const path of ['/v1/admin/feeds', '/v1/admin/keys', '/v1/admin/listings', '/v1/admin/leads', '/v1/admin/audit', '/v1/admin/quarantine']) {
      const refused = await call('GET', `${path}?sort=price;DROP`);
      expect(refused.status, path).to.equal(400);
      expect(refused.body.error, path).to.match(/query\.sort must be one of "received"|query\.sort must be one of/);
    }
  });

  it("filters listings by office and status and finds them by an agent's name", async () => {
    const found = async (q: string) => (await call('GET', `/v1/admin/listings?${q}`)).body.listings.map((l: { uniqueId: string }) => l.uniqueId);
    expect(await found('q=cara')).to.deep.equal(['CCC']);
    expect(await found('status=withdrawn')).to.deep.equal(['BB']);
    expect(await found('office=OFF2')).to.deep.equal([]);
    expect((await call('GET', '/v1/admin/listings?status=gone')).status).to.equal(400);
  });

  it('pages the keys with a total, finds them by client, email or office, and records when each was last used', async () => {
    const before = (await call('GET', '/v1/admin/keys')).body;
    expect(before).to.include({ total: 1, nextOffset: null });
    expect((await fetch(`${svc.url}/v1/feeds/whoami`, { headers: { authorization: `Bearer ${secret}` } })).status).to.equal(200);
    await eventually("the key's last use recorded", async () => (await svc.db('feed_keys').where({ id: keyId }).first('last_used_at')).last_used_at !== null);
    const after = (await call('GET', '/v1/admin/keys?q=off1&sort=-lastUsed')).body;
    expect(after.total).to.equal(1);
    expect(Date.parse(after.keys[0].lastUsedAt)).to.be.closeTo(Date.now(), 60_000);
    expect((await call('GET', '/v1/admin/keys?q=nobody')).body).to.deep.include({ total: 0, keys: [] });
    expect((await call('GET', '/v1/admin/keys?limit=500')).status).to.equal(400);
  });

  it("replaces a key's offices (audited), refusing ids that are not office ids and unknown keys", async () => {
    const bad = await call('PUT', `/v1/admin/keys/${keyId}`, { officeIds: ['OFF1', '<script>'] });
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.match(/body\.officeIds.*is not an office id/);
    expect((await call('PUT', `/v1/admin/keys/${keyId}`, { officeIds: [] })).status).to.equal(400);
    expect((await call('PUT', `/v1/admin/keys/${keyId}`, { officeIds: ['OFF1'], status: 'active' })).status).to.equal(400);
    expect((await call('PUT', '/v1/admin/keys/00000000-0000-4000-8000-000000000000', { officeIds: ['OFF1'] })).status).to.equal(404);
    expect((await call('PUT', '/v1/admin/keys/not-a-uuid', { officeIds: ['OFF1'] })).status).to.equal(404);
    const changed = await call('PUT', `/v1/admin/keys/${keyId}`, { officeIds: ['OFF1', 'OFF2', 'OFF1'] });
    expect(changed.status).to.equal(200);
    expect(changed.body.officeIds).to.deep.equal(['OFF1', 'OFF2']);
    const audit = (await call('GET', '/v1/admin/audit?action=key.offices')).body.entries;
    expect(audit[0]).to.deep.include({ target: keyId, details: { officeIds: ['OFF1', 'OFF2'] } });
    const byActor = (await call('GET', `/v1/admin/audit?actor=${encodeURIComponent(audit[0].actor)}&sort=action`)).body.entries;
    expect(byActor.map((e: { action: string }) => e.action)).to.include('key.offices');
    expect((await call('GET', '/v1/admin/audit?actor=nobody-at-all')).body.total).to.equal(0);
    // The key now pushes for OFF2 too, and still for OFF1.
    expect((await pushFeed(svc.url, secret, feed(officeListing('OFF2', 'Z')))).status).to.equal(200);
  });

  it('reviews one listing: why it is not public, the newest feed that carried it, its status history; one never stored is 404', async () => {
    const review = await call('GET', '/v1/admin/listings/OFF1/BB/review');
    expect(review.status).to.equal(200);
    expect(review.body.public).to.include({ readable: false, inSearch: false, reason: 'withdrawn' });
    const [, second] = await svc.db('feed_events').orderBy('created_at').select('id');
    expect(review.body.lastFeed).to.include({ feedId: second.id, outcome: 'with_invalid', action: 'updated' });
    expect(review.body).to.include.keys('createdAt', 'updatedAt', 'quarantine');
    expect(review.body.statusHistory.map((h: { from: string; to: string }) => [h.from, h.to])).to.deep.equal([['active', 'withdrawn']]);
    expect(review.body.listing.price.amount).to.equal(500000);
    const hidden = await call('POST', '/v1/admin/listings/visibility', { officeId: 'OFF1', uniqueId: 'A', hidden: true });
    expect(hidden.status).to.equal(200);
    const hiddenReview = (await call('GET', '/v1/admin/listings/OFF1/A/review')).body;
    expect([hiddenReview.public.reason, hiddenReview.listing.hidden]).to.deep.equal(['hidden_by_operator', true]);
    expect((await call('GET', '/v1/admin/listings/OFF1/NOADDR/review')).status).to.equal(404);
  });

  it('counts refused enquiries by reason, and routes a dead-letter lead again once the office has a lead email', async () => {
    const dead = await enquire('CCC');
    expect(dead.status).to.equal(202);
    const { id, status } = await dead.json();
    expect(status).to.equal('dead_letter');
    const stuck = await call('POST', `/v1/admin/leads/${id}/retry`);
    expect(stuck.status).to.equal(409);
    expect(stuck.body.error).to.match(/still has nowhere to go.*set the office's lead email first/);
    expect((await call('PUT', '/v1/admin/offices/OFF1', { leadEmail: 'office@agency.example' })).status).to.equal(200);
    const sent = await call('POST', `/v1/admin/leads/${id}/retry`);
    expect(sent).to.deep.equal({ status: 200, body: { id, status: 'pending', recipient: 'office@agency.example' } });
    // The retried lead shows no error until its new attempt ends; the audit entry keeps the old one.
    const retried = (await call('GET', `/v1/admin/leads?sender=HOME.example`)).body.leads.find((l: { id: string }) => l.id === id);
    expect(retried.lastError).to.equal(null);
    const audit = (await call('GET', '/v1/admin/audit?action=lead.retry')).body.entries;
    expect(audit[0]).to.deep.include({
      target: id,
      details: { recipient: 'office@agency.example', previousError: 'no recipient: no listing agent with an email and no office lead email' },
    });
    expect((await call('GET', '/v1/admin/leads?sender=HOME.example&sort=-attempts')).body.leads.map((l: { id: string }) => l.id)).to.deep.equal([id]);
    expect((await call('POST', `/v1/admin/leads/${id}/retry`)).status).to.equal(409);

    expect((await enquire('NOPE')).status).to.equal(404);
    expect((await enquire('NOPE2')).status).to.equal(404);
    expect((await call('POST', '/v1/admin/blocklist', { kind: 'email', value: 'spam@bulk.example' })).status).to.equal(200);
    expect((await enquire('CCC', 'spam@bulk.example')).status).to.equal(403);
    expect((await enquire('NOPE3')).status).to.equal(404);
    expect((await enquire('NOPE4')).status).to.equal(429);
    let refusals = { total: 0, byReason: {} as Record<string, number> };
    await eventually('five refusals counted', async () => {
      refusals = (await call('GET', '/v1/admin/leads/refusals?days=1')).body;
      return refusals.total === 5;
    });
    expect(refusals.byReason).to.deep.equal({ unknown_listing: 3, blocked: 1, rate_limited: 1 });
    expect((await call('GET', '/v1/admin/leads/refusals?days=0')).status).to.equal(400);
  });

  it("gives the dashboard's history: one entry per day with feeds by outcome, listings applied, invalid share and leads", async () => {
    const history = (await call('GET', '/v1/admin/stats/history?days=3')).body;
    expect(history.days).to.have.length(3);
    const today = history.days[2];
    expect(today.day).to.equal(new Date().toISOString().slice(0, 10));
    expect(today.feeds).to.deep.equal({ ok: 2, with_invalid: 1 });
    expect(today.listingsApplied).to.equal(5);
    expect(today.listingsRead).to.equal(6);
    expect(today.invalidPercent).to.equal(16.7);
    expect(Object.values(today.leads as Record<string, number>).reduce((a, b) => a + b, 0)).to.equal(1);
    expect(history.days[0].feeds).to.deep.equal({});
    expect(history.queueDepth).to.deep.equal([]);
    expect((await call('GET', '/v1/admin/stats/history?days=91')).status).to.equal(400);
  });
});
