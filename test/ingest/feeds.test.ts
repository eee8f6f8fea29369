import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { REAXML_MAPPING_VERSION } from '../../pipeline/reaxml/read-reaxml-feed.js';
import { feed } from '../helpers.js';
import { startTestService, type TestService } from '../service.js';
import { activeKey, officeListing, pushFeed } from './client.js';

describe('POST /v1/feeds: per-listing actions against PostgreSQL with BullMQ workers', function () {
  this.timeout(30_000);
  let svc: TestService;
  let key: string;
  before(async () => {
    svc = await startTestService({ database: 'postgres', redis: true });
    key = await activeKey(svc.db, ['OFF1', 'OFF2']);
  });
  after(() => svc.close());

  const push = async (xml: string, extra: Parameters<typeof pushFeed>[3] = {}) => {
    const res = await pushFeed(svc.url, key, xml, extra);
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).to.equal(200);
    expect(validatorFor('FeedIngested')(body), JSON.stringify(validatorFor('FeedIngested').errors)).to.equal(true);
    return body;
  };
  const row = (k: string) => svc.db('listings').where({ listing_key: k }).first();

  it('inserts, then finds a re-send unchanged without writing, then updates what changed', async () => {
    const first = await push(feed(officeListing('OFF1', 'A'), officeListing('OFF1', 'B')));
    expect(first.ok).to.equal(true);
    expect(first.counts).to.deep.equal({ parsed: 2, valid: 2, invalid: 0 });
    expect(first.summary).to.deep.equal({ inserted: 2, updated: 0, unchanged: 0, stale_ignored: 0 });
    expect(first.upserts).to.deep.equal([
      { listingKey: 'OFF1/A', action: 'inserted' },
      { listingKey: 'OFF1/B', action: 'inserted' },
    ]);
    const stored = await row('OFF1/A');
    expect(stored.data.price).to.deep.include({ amount: 500000, currency: 'AUD' });
    expect(stored.data.address.locality).to.equal('Richmond');

    const state = "SELECT listing_key, xmin::text AS xmin, updated_at, content_hash, mod_time FROM listings WHERE office = 'OFF1' ORDER BY 1";
    const before = (await svc.db.raw(state)).rows;
    // The same content is unchanged; the same content with a newer modTime too (modTime is not
    // content), but its newer modTime is stored: nothing else of the row changes.
    const again = await push(feed(officeListing('OFF1', 'A'), officeListing('OFF1', 'B', { modTime: '2024-03-02-10:00:00' })));
    expect(again.summary).to.deep.equal({ inserted: 0, updated: 0, unchanged: 2, stale_ignored: 0 });
    const after = (await svc.db.raw(state)).rows;
    expect(after[0], 'no row version was written for A').to.deep.equal(before[0]);
    expect(after[1].updated_at).to.deep.equal(before[1].updated_at);
    expect(after[1].content_hash).to.equal(before[1].content_hash);
    expect(after[1].mod_time.toISOString()).to.equal('2024-03-01T23:00:00.000Z');
    expect((await row('OFF1/B')).data.modTime).to.equal('2024-03-01T23:00:00Z');

    const changed = await push(feed(officeListing('OFF1', 'A', { modTime: '2024-03-03-10:00:00', price: 650000 })));
    expect(changed.upserts).to.deep.equal([{ listingKey: 'OFF1/A', action: 'updated' }]);
    expect((await row('OFF1/A')).data.price.amount).to.equal(650000);
    expect((await row('OFF1/A')).mod_time.toISOString()).to.equal('2024-03-02T23:00:00.000Z'); // 10:00 in Melbourne (AEDT)
  });

  it('after a mapping change, an unchanged re-send stamps the new fingerprints once and writes nothing else', async () => {
    const xml = feed(officeListing('OFF2', 'FP1'), officeListing('OFF2', 'FP2'));
    await push(xml);
    const fingerprints = async () =>
      (await svc.db('listings').whereIn('listing_key', ['OFF2/FP1', 'OFF2/FP2']).orderBy('listing_key').pluck('source_hash')) as string[];
    const current = await fingerprints();
    expect(current.every((f) => f.startsWith(`reaxml${REAXML_MAPPING_VERSION}:`))).to.equal(true);
    // As left by an older mapping version, and by a release before fingerprints named their mapping.
    await svc.db('listings').where({ listing_key: 'OFF2/FP1' }).update({ source_hash: 'reaxml0:older-mapping' });
    await svc.db('listings').where({ listing_key: 'OFF2/FP2' }).update({ source_hash: 'legacy-unprefixed' });
    const state = () =>
      svc.db.raw("SELECT listing_key, data, mod_time, updated_at, content_hash FROM listings WHERE office = 'OFF2' AND unique_id LIKE 'FP%' ORDER BY 1");
    const before = (await state()).rows;

    const again = await push(xml);
    expect(again.summary).to.deep.equal({ inserted: 0, updated: 0, unchanged: 2, stale_ignored: 0 });
    expect(await fingerprints(), 'the current fingerprints are stamped').to.deep.equal(current);
    expect((await state()).rows, 'nothing but the fingerprint was written').to.deep.equal(before);

    // From now on the fast path applies, and a re-send under the same mapping writes no row version.
    const versions = () => svc.db.raw("SELECT listing_key, xmin::text AS xmin FROM listings WHERE office = 'OFF2' AND unique_id LIKE 'FP%' ORDER BY 1");
    const stamped = (await versions()).rows;
    expect((await push(xml)).summary.unchanged).to.equal(2);
    expect((await versions()).rows).to.deep.equal(stamped);
  });

  it('judges a record against the newest modTime seen, even when that one changed nothing', async () => {
    // T1 price 100 is stored; T3 with the same content is unchanged; T2 (between them) is stale.
    expect((await push(feed(officeListing('OFF2', 'MT', { modTime: '2024-05-01-10:00:00', price: 100 })))).summary.inserted).to.equal(1);
    expect((await push(feed(officeListing('OFF2', 'MT', { modTime: '2024-05-03-10:00:00', price: 100 })))).summary.unchanged).to.equal(1);
    const between = await push(feed(officeListing('OFF2', 'MT', { modTime: '2024-05-02-10:00:00', price: 200 })));
    expect(between.upserts).to.deep.equal([{ listingKey: 'OFF2/MT', action: 'stale_ignored' }]);
    expect((await row('OFF2/MT')).data.price.amount).to.equal(100);
    // The T3 re-send itself is now a known source again: unchanged, nothing written.
    const versions = async () => (await svc.db.raw("SELECT xmin::text AS xmin FROM listings WHERE listing_key = 'OFF2/MT'")).rows;
    const stamped = await versions();
    expect((await push(feed(officeListing('OFF2', 'MT', { modTime: '2024-05-03-10:00:00', price: 100 })))).summary.unchanged).to.equal(1);
    expect(await versions()).to.deep.equal(stamped);
    // Within one feed too: T3 unchanged, then T2.
    await push(feed(officeListing('OFF2', 'MU', { modTime: '2024-05-01-10:00:00', price: 100 })));
    const inOne = await push(
      feed(
        officeListing('OFF2', 'MU', { modTime: '2024-05-03-10:00:00', price: 100 }),
        officeListing('OFF2', 'MU', { modTime: '2024-05-02-10:00:00', price: 200 }),
      ),
    );
    expect(inOne.upserts.map((u: { action: string }) => u.action)).to.deep.equal(['unchanged', 'stale_ignored']);
    expect((await row('OFF2/MU')).data.price.amount).to.equal(100);
    expect((await row('OFF2/MU')).mod_time.toISOString()).to.equal('2024-05-03T00:00:00.000Z');
  });

  it('decides a batch holding a key an earlier batch carried on what that batch wrote (two batches in flight)', async () => {
    // X1 is stored. A feed of 1,000 listings carries the key twice with equal modTimes: X2 in the
    // first batch of 500, X1 again in the second. In feed order the later one wins: X1 at the end,
    // though the second batch is decided while the first is still being written.
    const at = { modTime: '2024-06-01-10:00:00' };
    expect((await push(feed(officeListing('OFF2', 'REPEAT', { ...at, price: 100 })))).summary.inserted).to.equal(1);
    const fillers = (from: number) => Array.from({ length: 499 }, (_, i) => officeListing('OFF2', `FILL${from + i}`));
    const result = await push(
      feed(officeListing('OFF2', 'REPEAT', { ...at, price: 200 }), ...fillers(0), officeListing('OFF2', 'REPEAT', { ...at, price: 100 }), ...fillers(499)),
    );
    const actions = result.upserts.filter((u: { listingKey: string }) => u.listingKey === 'OFF2/REPEAT').map((u: { action: string }) => u.action);
    expect(actions).to.deep.equal(['updated', 'updated']);
    expect((await row('OFF2/REPEAT')).data.price.amount).to.equal(100);
    expect(result.summary.inserted).to.equal(998);
  });

  it('never lets a key reach an office outside its scope through markup inside agentID or uniqueID', async () => {
    const narrow = await activeKey(svc.db, ['OFF1X']);
    const victim = await row('OFF1/A');
    const attack = (ids: string) =>
      `<residential modTime="2030-01-01-10:00:00" status="current">${ids}<headline>Owned</headline><price>1</price>` +
      '<address><streetNumber>1</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address></residential>';
    for (const ids of [
      '<agentID>OFF1<x>X</x></agentID><uniqueID>A</uniqueID>',
      '<agentID>OFF1X</agentID><uniqueID>A<b/></uniqueID>',
      '<agentID><x/>OFF1</agentID><uniqueID>A</uniqueID>',
    ]) {
      for (const mode of ['incremental', 'full'] as const) {
        const res = await pushFeed(svc.url, narrow, feed(attack(ids)), { mode });
        const body = await res.json();
        expect(res.status, JSON.stringify(body)).to.equal(200);
        expect(body.counts, ids).to.deep.equal({ parsed: 1, valid: 0, invalid: 1 });
        expect(body.upserts).to.deep.equal([]);
        expect(body.issues.map((i: { code: string }) => i.code)).to.include('invalid_identity');
      }
    }
    expect(await row('OFF1/A'), "the other office's listing is untouched").to.deep.equal(victim);
    expect(await svc.db('listings').where({ office: 'OFF1X' }).count('* as n').first()).to.deep.equal({ n: '0' });
  });

  it('ignores a record older than the stored one (stale_ignored) and keeps the stored version', async () => {
    const stale = await push(feed(officeListing('OFF1', 'A', { modTime: '2024-01-01-10:00:00', price: 1 })));
    expect(stale.upserts).to.deep.equal([{ listingKey: 'OFF1/A', action: 'stale_ignored' }]);
    expect((await row('OFF1/A')).data.price.amount).to.equal(650000);
  });

  it('applies a listing that occurs twice in one feed in feed order', async () => {
    const res = await push(
      feed(
        officeListing('OFF2', 'DUP', { modTime: '2024-03-02-10:00:00', price: 1 }),
        officeListing('OFF2', 'DUP', { modTime: '2024-03-03-10:00:00', price: 2 }),
        officeListing('OFF2', 'DUP', { modTime: '2024-03-01-10:00:00', price: 3 }),
      ),
    );
    expect(res.upserts.map((u: { action: string }) => u.action)).to.deep.equal(['inserted', 'updated', 'stale_ignored']);
    expect(
      res.issues.filter((i: { code: string }) => i.code === 'duplicate_listing').map((i: { listingIndex: number; path: string }) => [i.listingIndex, i.path]),
    ).to.deep.equal([
      [1, '/propertyList/residential[2]'],
      [2, '/propertyList/residential[3]'],
    ]);
    expect((await row('OFF2/DUP')).data.price.amount).to.equal(2);
  });

  it('applies a listing that occurs in two batches in feed order, the later one decided on what the earlier one wrote', async () => {
    // Batches are 500 listings: the second occurrence is decided in the next batch.
    const v1 = officeListing('OFF2', 'XB', { modTime: '2024-03-01-10:00:00', price: 1 });
    const v2 = officeListing('OFF2', 'XB', { modTime: '2024-03-02-10:00:00', price: 2 });
    const v3 = officeListing('OFF2', 'XB', { modTime: '2024-03-03-10:00:00', price: 3 });
    const filler = (from: number) => Array.from({ length: 499 }, (_, i) => officeListing('OFF2', `XF${from + i}`));
    expect((await push(feed(v1))).upserts).to.deep.equal([{ listingKey: 'OFF2/XB', action: 'inserted' }]);

    // v2 in the first batch, then the stored v1 again (its source fingerprint is the stored one) in
    // the second: that is older than v2 by then, so stale_ignored, not unchanged.
    const stale = await push(feed(v2, ...filler(0), v1));
    expect(stale.upserts[0]).to.deep.equal({ listingKey: 'OFF2/XB', action: 'updated' });
    expect(stale.upserts[500]).to.deep.equal({ listingKey: 'OFF2/XB', action: 'stale_ignored' });
    expect((await row('OFF2/XB')).data.price.amount).to.equal(2);

    // v1 first (stale), then v3 in the second batch: updated onto v2.
    const newer = await push(feed(v1, ...filler(1000), v3));
    expect([newer.upserts[0].action, newer.upserts[500].action]).to.deep.equal(['stale_ignored', 'updated']);
    expect(newer.summary).to.deep.equal({ inserted: 499, updated: 1, unchanged: 0, stale_ignored: 1 });
    expect((await row('OFF2/XB')).data.price.amount).to.equal(3);
  });

  it('merges a delta onto the stored record: a status-only record keeps the rest', async () => {
    const res = await push(feed('<residential modTime="2024-04-01-10:00:00" status="sold"><agentID>OFF1</agentID><uniqueID>B</uniqueID></residential>'));
    expect(res.upserts).to.deep.equal([{ listingKey: 'OFF1/B', action: 'updated' }]);
    const stored = await row('OFF1/B');
    expect(stored.status).to.equal('sold');
    expect(stored.data.address.locality).to.equal('Richmond');
    expect(stored.data.headline).to.deep.equal({ 'en-AU': 'Home B' });
  });

  it('never stores a listing of an office outside the key, and records invalid listings with their issues', async () => {
    const res = await push(
      feed(
        officeListing('OTHER', 'X'),
        officeListing('OFF2', 'C'),
        '<residential modTime="2024-03-01-10:00:00" status="current"><agentID>OFF2</agentID><uniqueID>D</uniqueID></residential>',
      ),
    );
    expect(res.ok).to.equal(false);
    expect(res.counts).to.deep.equal({ parsed: 3, valid: 1, invalid: 2 });
    expect(res.upserts).to.deep.equal([{ listingKey: 'OFF2/C', action: 'inserted' }]);
    const codes = res.issues.filter((i: { level: string }) => i.level === 'error').map((i: { code: string; listingIndex: number }) => [i.code, i.listingIndex]);
    expect(codes).to.deep.equal([
      ['office_not_in_scope', 0],
      ['missing_address', 2],
    ]);
    expect(await row('OTHER/X')).to.equal(undefined);
    expect(await row('OFF2/D')).to.equal(undefined);
    // The feed event keeps the result for operators.
    const event = await svc.db('feed_events').orderBy('created_at', 'desc').first();
    expect(event.result.issues.map((i: { code: string }) => i.code)).to.include.members(['office_not_in_scope', 'missing_address']);
  });

  it('accepts raw XML with the key in x-feed-token and the context in the query', async () => {
    const res = await fetch(`${svc.url}/v1/feeds?currency=NZD&country=NZ&officeId=OFF2`, {
      method: 'POST',
      headers: { 'x-feed-token': key, 'content-type': 'application/xml' },
      body: feed(officeListing('IGNORED', 'E')),
    });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).to.equal(200);
    expect(body.upserts).to.deep.equal([{ listingKey: 'OFF2/E', action: 'inserted' }]);
    expect((await row('OFF2/E')).data.price.currency).to.equal('NZD');

    // Bytes are stored as sent and decoded by their declaration (ISO-8859-1 here).
    const latin1 = Buffer.from(
      `<?xml version="1.0" encoding="ISO-8859-1"?>${feed(officeListing('OFF2', 'G', { headline: 'Caf\u00e9 \u00ff' })).replace(/^<\?xml[^>]*>/, '')}`,
      'latin1',
    );
    const raw = await fetch(`${svc.url}/v1/feeds?currency=AUD`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/xml' },
      body: latin1,
    });
    expect(raw.status).to.equal(200);
    expect((await row('OFF2/G')).data.headline).to.deep.equal({ 'en-AU': 'Caf\u00e9 \u00ff' });
    const stored = await svc.db('feed_events').orderBy('created_at', 'desc').first('body_sha256', 'body_bytes');
    expect(stored.body_bytes).to.equal(String(latin1.length));
    expect(stored.body_sha256).to.equal(createHash('sha256').update(latin1).digest('hex'));
  });

  it('answers 400 for bad bodies and for a feed that is not well-formed (recorded on the feed event)', async () => {
    const bad = await fetch(`${svc.url}/v1/feeds`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ xml: '<a/>', context: { currency: 'XXQ' } }),
    });
    expect(bad.status).to.equal(400);
    expect((await bad.json()).error).to.match(/currency/);
    const broken = await pushFeed(svc.url, key, '<propertyList><residential><agentID>OFF1</agentID>');
    expect(broken.status).to.equal(400);
    expect((await broken.json()).error).to.match(/not well-formed|truncated|unclosed/i);
    const event = await svc.db('feed_events').orderBy('created_at', 'desc').first();
    expect(event.status).to.equal('done');
    expect(event.result.issues[0].code).to.equal('feed_not_well_formed');
  });

  it('answers 202 with a status URL when the wait runs out, and the status URL answers only the same key', async () => {
    const quick = await startTestService({ database: 'postgres', redis: true, db: svc.db, env: { FEED_SYNC_WAIT_MS: '0' } });
    try {
      const res = await pushFeed(quick.url, key, feed(officeListing('OFF1', 'F')));
      expect(res.status).to.equal(202);
      const accepted = await res.json();
      expect(validatorFor('FeedAccepted')(accepted)).to.equal(true);
      expect(res.headers.get('location')).to.equal(accepted.statusUrl);
      let status: { status: string; result: { upserts: unknown[] } | null } | undefined;
      for (let i = 0; i < 100; i += 1) {
        status = await (await fetch(`${quick.url}${accepted.statusUrl}`, { headers: { authorization: `Bearer ${key}` } })).json();
        if (status!.status === 'done') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(validatorFor('FeedStatus')(status), JSON.stringify(validatorFor('FeedStatus').errors)).to.equal(true);
      expect(status!.result!.upserts).to.deep.equal([{ listingKey: 'OFF1/F', action: 'inserted' }]);
      const otherKey = await activeKey(svc.db, ['OFF1']);
      expect((await fetch(`${quick.url}${accepted.statusUrl}`, { headers: { authorization: `Bearer ${otherKey}` } })).status).to.equal(404);
      expect((await fetch(`${quick.url}/v1/feeds/nope`, { headers: { authorization: `Bearer ${key}` } })).status).to.equal(404);
    } finally {
      await quick.close();
    }
  });
});
