import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { createOperatorToken, revokeOperatorToken } from '../../db/operators.js';
import { OFFICE_ID_RULE } from '../../lib/office-id.js';
import { feed } from '../helpers.js';
import { AUD, activeKey, admin, officeListing, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';

const ADMIN_ROUTES: [string, string][] = [
  ['GET', '/v1/admin/keys'],
  ['POST', '/v1/admin/keys'],
  ['PUT', '/v1/admin/keys/00000000-0000-4000-8000-000000000000'],
  ['GET', '/v1/admin/stats/history'],
  ['GET', '/v1/admin/listings/OFF1/A/review'],
  ['GET', '/v1/admin/leads/refusals'],
  ['POST', '/v1/admin/feeds/00000000-0000-4000-8000-000000000000/retry'],
  ['POST', '/v1/admin/keys/00000000-0000-4000-8000-000000000000/approve'],
  ['POST', '/v1/admin/keys/00000000-0000-4000-8000-000000000000/revoke'],
  ['GET', '/v1/admin/quarantine'],
  ['POST', '/v1/admin/quarantine/00000000-0000-4000-8000-000000000000/resolve'],
  ['GET', '/v1/admin/stats'],
  ['GET', '/v1/admin/listings'],
  ['POST', '/v1/admin/listings/visibility'],
  ['GET', '/v1/admin/feeds'],
  ['GET', '/v1/admin/audit'],
  ['PUT', '/v1/admin/site/settings'],
  ['PUT', '/v1/admin/site/nav'],
  ['GET', '/v1/admin/site/pages'],
  ['POST', '/v1/admin/site/pages'],
  ['GET', '/v1/admin/leads'],
  ['POST', '/v1/admin/leads/00000000-0000-4000-8000-000000000000/retry'],
  ['GET', '/v1/admin/blocklist'],
  ['POST', '/v1/admin/blocklist'],
  ['DELETE', '/v1/admin/blocklist'],
  ['PUT', '/v1/admin/offices/OFF1'],
  ['GET', '/v1/admin/site/pages/about'],
  ['PUT', '/v1/admin/site/pages/id/00000000-0000-4000-8000-000000000000'],
  ['DELETE', '/v1/admin/site/pages/id/00000000-0000-4000-8000-000000000000'],
  ['GET', '/v1/admin/offices'],
  ['GET', '/v1/admin/quarantine/00000000-0000-4000-8000-000000000000/listings'],
  ['GET', '/v1/admin/feeds/00000000-0000-4000-8000-000000000000/issues'],
  ['GET', '/v1/admin/webhooks'],
  ['POST', '/v1/admin/webhooks'],
  ['GET', '/v1/admin/webhooks/00000000-0000-4000-8000-000000000000'],
  ['PATCH', '/v1/admin/webhooks/00000000-0000-4000-8000-000000000000'],
  ['DELETE', '/v1/admin/webhooks/00000000-0000-4000-8000-000000000000'],
  ['POST', '/v1/admin/webhooks/00000000-0000-4000-8000-000000000000/rotate-secret'],
  ['POST', '/v1/admin/webhooks/00000000-0000-4000-8000-000000000000/test'],
  ['GET', '/v1/admin/webhooks/00000000-0000-4000-8000-000000000000/deliveries'],
];

describe('Operator API and site content (PostgreSQL)', function () {
  this.timeout(30_000);
  let svc: TestService;
  let key: string;
  let alice: string;
  before(async () => {
    svc = await startTestService({ database: 'postgres' });
    key = await activeKey(svc.db, ['OFF1', 'OFF2']);
    alice = (await createOperatorToken(svc.db, 'alice')).token;
    const res = await pushFeed(
      svc.url,
      key,
      feed(officeListing('OFF1', 'A', { headline: 'Sunny cottage' }), officeListing('OFF1', 'B'), officeListing('OFF2', 'C', { status: 'sold' })),
    );
    expect(res.status).to.equal(200);
  });
  after(() => svc.close());

  const as = (token: string) => (method: string, path: string, body?: unknown) => admin(svc.url, method, path, body, token);
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const res = await admin(svc.url, method, path, body, token);
    return { status: res.status, body: await res.json() };
  };

  it(`answers 401 with an error body on all ${ADMIN_ROUTES.length} admin routes without a valid credential, and accepts named tokens until revoked`, async () => {
    for (const [method, path] of ADMIN_ROUTES) {
      for (const headers of [{}, { authorization: 'Bearer wrong-token-wrong-token' }, { authorization: 'Basic b3A6d3Jvbmc=' }] as Record<string, string>[]) {
        const res = await fetch(`${svc.url}${path}`, { method, headers });
        expect(res.status, `${method} ${path}`).to.equal(401);
        expect(Object.keys(await res.json())).to.deep.equal(['error']);
      }
    }
    expect((await as(alice)('GET', '/v1/admin/stats')).status).to.equal(200);
    const bob = (await createOperatorToken(svc.db, 'bob')).token;
    expect((await as(bob)('GET', '/v1/admin/stats')).status).to.equal(200);
    await revokeOperatorToken(svc.db, 'bob');
    expect((await as(bob)('GET', '/v1/admin/stats')).status).to.equal(401);
  });

  it("creates an active feed key through the API (the running service's key:create), shown once and audited", async () => {
    const created = await call('POST', '/v1/admin/keys', { clientName: 'Ops import', alertEmail: 'ops@example.com', officeIds: ['OFF9'] });
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ status: 'active' });
    expect(created.body.officeIds).to.deep.equal(['OFF9']);
    const whoami = await (await fetch(`${svc.url}/v1/feeds/whoami`, { headers: { authorization: `Bearer ${created.body.key}` } })).json();
    expect(whoami).to.include({ keyId: created.body.id, status: 'active' });
    const listed = (await call('GET', '/v1/admin/keys')).body.keys.find((k: { id: string }) => k.id === created.body.id);
    expect(JSON.stringify(listed)).not.to.contain(created.body.key);
    // Named for a person: the key's client name beside its id.
    expect((await call('GET', '/v1/admin/audit?action=key.create')).body.entries[0]).to.include({
      action: 'key.create',
      target: created.body.id,
      targetName: 'Ops import',
      actorName: null,
    });
    expect((await call('POST', '/v1/admin/keys', { clientName: 'x', alertEmail: 'nope', officeIds: [] })).status).to.equal(400);
  });

  it('shows the dashboard figures', async () => {
    const { status, body } = await call('GET', '/v1/admin/stats');
    expect(status).to.equal(200);
    expect(body.listings).to.deep.include({ total: 3, public: 2, hidden: 0, archived: 0 });
    expect(body.listings.byStatus).to.deep.equal({ active: 2, sold: 1 });
    expect(body.directory).to.deep.equal({ agents: 0, offices: 1 });
    expect(body.quarantine).to.deep.equal({ open: 0 });
    expect(body.feedKeys.active).to.be.at.least(1);
    expect(body.leads).to.deep.equal({});
    expect(body.blocklist).to.deep.equal({ entries: 0 });
    expect(body).not.to.have.property('queues'); // no REDIS_URL here
  });

  it('lists every office the service knows of, with listings, lead email, keys and newest feed; sorted, found by id and paged', async () => {
    const all = await call('GET', '/v1/admin/offices');
    expect(all.status).to.equal(200);
    expect(validatorFor('AdminOfficePage')(all.body), JSON.stringify(validatorFor('AdminOfficePage').errors)).to.equal(true);
    const off1 = all.body.offices.find((o: { office: string }) => o.office === 'OFF1');
    expect(off1.listings).to.deep.equal({ total: 2, public: 2 });
    expect(off1.keys.map((k: { clientName: string }) => k.clientName)).to.include('Test CRM');
    expect(off1.lastFeed.outcome).to.equal('ok');
    const byListings = await call('GET', '/v1/admin/offices?sort=-listings&limit=1');
    expect(byListings.body.offices.map((o: { office: string }) => o.office)).to.deep.equal(['OFF1']);
    expect(byListings.body.nextOffset).to.equal(1);
    const found = await call('GET', '/v1/admin/offices?q=ff2');
    expect(found.body.offices.map((o: { office: string }) => o.office)).to.deep.equal(['OFF2']);
    expect(found.body.total).to.equal(1);
    // A LIKE wildcard in q is a character to find, not a pattern.
    expect((await call('GET', '/v1/admin/offices?q=%25')).body.total).to.equal(0);
    expect((await call('GET', '/v1/admin/offices?sort=size')).status).to.equal(400);
  });

  it('lists listings for review (hidden and non-public included) with q, hidden, limit and offset', async () => {
    const all = await call('GET', '/v1/admin/listings');
    expect(all.body.total).to.equal(3);
    expect(all.body.listings.map((l: { listingKey: string }) => l.listingKey).sort()).to.deep.equal(['OFF1/A', 'OFF1/B', 'OFF2/C']);
    expect((await call('GET', '/v1/admin/listings?q=SUNNY')).body.listings.map((l: { listingKey: string }) => l.listingKey)).to.deep.equal(['OFF1/A']);
    expect((await call('GET', '/v1/admin/listings?q=off2/')).body.total).to.equal(1);
    expect((await call('GET', '/v1/admin/listings?q=richmond&limit=1&offset=1')).body.listings).to.have.length(1);
    for (const query of ['limit=0', 'limit=201', 'offset=-1', `q=${'x'.repeat(101)}`, 'hidden=maybe', 'other=1']) {
      const res = await call('GET', `/v1/admin/listings?${query}`);
      expect(res.status, query).to.equal(400);
      expect(res.body.error).to.be.a('string');
    }
  });

  it('hides a listing from every public read and the directory; the flag survives re-ingest; the action is audited', async () => {
    const hide = await as(alice)('POST', '/v1/admin/listings/visibility', { officeId: 'OFF1', uniqueId: 'A', hidden: true });
    expect(hide.status).to.equal(200);
    expect(await hide.json()).to.deep.equal({ listingKey: 'OFF1/A', hidden: true, status: 'active' });
    expect((await fetch(`${svc.url}/v1/listings/OFF1/A`)).status).to.equal(404);
    const search = await (await fetch(`${svc.url}/v1/listings?office=OFF1&limit=10`)).json();
    expect(search.listings.map((l: { uniqueId: string }) => l.uniqueId)).to.deep.equal(['B']);
    expect((await (await fetch(`${svc.url}/v1/offices?office=OFF1`)).json()).offices[0].listingCount).to.equal(1);

    // Re-ingest with a change: still hidden.
    const again = await pushFeed(svc.url, key, feed(officeListing('OFF1', 'A', { headline: 'Sunny cottage, new paint', modTime: '2024-04-01-10:00:00' })));
    expect((await again.json()).upserts).to.deep.equal([{ listingKey: 'OFF1/A', action: 'updated' }]);
    expect((await fetch(`${svc.url}/v1/listings/OFF1/A`)).status).to.equal(404);
    expect((await call('GET', '/v1/admin/listings?hidden=true')).body.listings.map((l: { listingKey: string }) => l.listingKey)).to.deep.equal(['OFF1/A']);

    expect((await call('POST', '/v1/admin/listings/visibility', { officeId: 'OFF1', uniqueId: 'A', hidden: false })).status).to.equal(200);
    expect((await fetch(`${svc.url}/v1/listings/OFF1/A`)).status).to.equal(200);
    expect((await call('POST', '/v1/admin/listings/visibility', { officeId: 'OFF1', uniqueId: 'NOPE', hidden: true })).status).to.equal(404);
    for (const body of [
      { officeId: '', uniqueId: 'A', hidden: true },
      { officeId: 'x'.repeat(101), uniqueId: 'A', hidden: true },
      { officeId: 'OFF1', uniqueId: 'A' },
      { officeId: 'OFF1', uniqueId: 'A', hidden: 'yes' },
    ]) {
      expect((await call('POST', '/v1/admin/listings/visibility', body)).status, JSON.stringify(body)).to.equal(400);
    }

    const audit = (await call('GET', '/v1/admin/audit?action=listing.hide')).body;
    expect(audit.entries[0]).to.deep.include({ actor: 'token:alice', action: 'listing.hide', target: 'OFF1/A' });
    expect((await call('GET', '/v1/admin/audit')).body.entries[0]).to.deep.include({ actor: 'bootstrap', action: 'listing.show' });
  });

  it('lists recent feed events with counts, status and issues, but never bodies or per-listing upserts', async () => {
    await pushFeed(
      svc.url,
      key,
      feed('<residential modTime="2024-03-01-10:00:00" status="current"><agentID>OFF2</agentID><uniqueID>BAD</uniqueID></residential>'),
    );
    const { body } = await call('GET', '/v1/admin/feeds?limit=2');
    expect(validatorFor('AdminFeedPage')(body), JSON.stringify(validatorFor('AdminFeedPage').errors)).to.equal(true);
    expect(body.total).to.be.at.least(3);
    const [latest] = body.feeds;
    expect(latest).to.deep.include({ source: 'api', status: 'done', outcome: 'with_invalid', ok: false, counts: { parsed: 1, valid: 0, invalid: 1 } });
    expect(latest.issues.map((i: { code: string }) => i.code)).to.include('missing_address');
    expect(latest).not.to.have.property('upserts');
    expect((await call('GET', '/v1/admin/feeds?status=failed')).body.total).to.equal(0);
    // A feed that could not be read is done, but its outcome says so (not "ok").
    expect((await pushFeed(svc.url, key, '<propertyList><residential>')).status).to.equal(400);
    const [unreadable] = (await call('GET', '/v1/admin/feeds?limit=1')).body.feeds;
    expect(unreadable).to.deep.include({ status: 'done', outcome: 'not_well_formed' });
    expect(body.feeds.slice(1).every((f: { outcome: string }) => f.outcome === 'ok')).to.equal(true);
    expect((await call('GET', '/v1/admin/feeds?status=odd')).status).to.equal(400);
  });

  it('edits site settings and navigation; an empty navigation restores the default', async () => {
    expect((await call('PUT', '/v1/admin/site/settings', { key: 'identity', value: { name: 'Homes' } })).status).to.equal(200);
    for (const body of [{ key: 'theme', value: {} }, { key: 'seo', value: 'x' }, { key: 'seo' }, { key: 'seo', value: {}, extra: 1 }]) {
      expect((await call('PUT', '/v1/admin/site/settings', body)).status, JSON.stringify(body)).to.equal(400);
    }
    const link = { kind: 'custom', ref: 'https://blog.example.com/', label: { 'en-AU': 'Blog' }, visible: true, newTab: true };
    expect((await call('PUT', '/v1/admin/site/nav', { links: [link] })).body.navigation).to.deep.equal([link]);
    const site = await (await fetch(`${svc.url}/v1/site`)).json();
    expect(validatorFor('Site')(site)).to.equal(true);
    expect(site.settings).to.deep.equal({ identity: { name: 'Homes' }, seo: {}, favicon: {} });
    expect(site.navigation).to.deep.equal([link]);
    for (const links of [
      Array(21).fill(link),
      [{ ...link, ref: '' }],
      [{ ...link, ref: 'x'.repeat(501) }],
      [{ ...link, kind: 'other' }],
      [{ ...link, label: { 'en-AU': 'x'.repeat(20001) } }],
    ]) {
      expect((await call('PUT', '/v1/admin/site/nav', { links })).status).to.equal(400);
    }
    const restored = (await call('PUT', '/v1/admin/site/nav', { links: [] })).body.navigation;
    expect(restored.map((l: { ref: string }) => l.ref)).to.deep.equal(['listings', 'agents', 'offices']);
    expect((await (await fetch(`${svc.url}/v1/site`)).json()).navigation).to.deep.equal(restored);
  });

  it('publishes only http(s) URLs and site paths in settings and navigation, refused on write and left out on read', async () => {
    const bad = [
      { key: 'identity', value: { logoUrl: 'javascript:alert(1)' } },
      { key: 'favicon', value: { href: 'data:image/svg+xml,<svg onload=alert(1)>' } },
      { key: 'seo', value: { og: { image: '//evil.example/x.png' } } },
      { key: 'identity', value: { tagline: ' java\tscript:alert(1)' } },
    ];
    for (const body of bad) {
      const res = await call('PUT', '/v1/admin/site/settings', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error).to.match(/http\(s\) URL or a path on this site/);
    }
    for (const ref of ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', '//evil.example/']) {
      const res = await call('PUT', '/v1/admin/site/nav', { links: [{ kind: 'custom', ref, label: null, visible: true, newTab: false }] });
      expect(res.status, ref).to.equal(400);
    }
    const ok = await call('PUT', '/v1/admin/site/settings', {
      key: 'identity',
      value: { name: 'Homes', logoUrl: '/static/logo.png', siteUrl: 'https://homes.example/a"b' },
    });
    expect(ok.status).to.equal(200);
    expect(ok.body.settings.identity).to.deep.equal({ name: 'Homes', logoUrl: '/static/logo.png', siteUrl: 'https://homes.example/a%22b' });
    // Values stored before addresses were checked are not served.
    await svc.db('site_settings').where({ key: 'favicon' }).delete();
    await svc.db('site_settings').insert({ key: 'favicon', value: JSON.stringify({ href: 'javascript:alert(1)', sizes: '32x32' }) });
    await svc
      .db('site_navigation')
      .insert({ id: 1, links: JSON.stringify([{ kind: 'custom', ref: 'javascript:alert(1)', label: null, visible: true, newTab: false }]) })
      .onConflict('id')
      .merge();
    const site = await (await fetch(`${svc.url}/v1/site`)).json();
    expect(site.settings.favicon).to.deep.equal({ href: null, sizes: '32x32' });
    expect(site.navigation).to.deep.equal([]);
    expect(JSON.stringify(site)).to.not.include('javascript:');
    await call('PUT', '/v1/admin/site/nav', { links: [] });
    await call('PUT', '/v1/admin/site/settings', { key: 'identity', value: { name: 'Homes' } });
  });

  it('creates, reads, updates and deletes pages; only published pages are public; slugs are unique', async () => {
    const created = await call('POST', '/v1/admin/site/pages', { slug: 'about', title: { 'en-AU': 'About' }, body: { 'en-AU': 'Who we are' } });
    expect(created.status).to.equal(200);
    expect(validatorFor('Page')(created.body)).to.equal(true);
    expect(created.body).to.include({ slug: 'about', published: false, description: null });
    expect((await call('POST', '/v1/admin/site/pages', { slug: 'about', title: { en: 'x' }, body: { en: 'y' } })).status).to.equal(409);
    for (const body of [
      { slug: 'About Us', title: { en: 'x' }, body: { en: 'y' } },
      { slug: 'x'.repeat(81), title: { en: 'x' }, body: { en: 'y' } },
      { slug: 'ok', title: {}, body: { en: 'y' } },
      { slug: 'ok', title: { en: 'x'.repeat(20001) }, body: { en: 'y' } },
      { slug: 'ok', body: { en: 'y' } },
    ]) {
      expect((await call('POST', '/v1/admin/site/pages', body)).status, JSON.stringify(body).slice(0, 80)).to.equal(400);
    }
    expect((await fetch(`${svc.url}/v1/site/pages/about`)).status, 'drafts are not public').to.equal(404);
    expect((await call('GET', '/v1/admin/site/pages/about')).body.id).to.equal(created.body.id);

    const id = created.body.id;
    const published = await call('PUT', `/v1/admin/site/pages/id/${id}`, { published: true, description: { 'en-AU': 'About us' } });
    expect(published.body).to.include({ published: true });
    const publicPage = await (await fetch(`${svc.url}/v1/site/pages/about`)).json();
    expect(publicPage).to.include({ id, slug: 'about' });
    expect((await (await fetch(`${svc.url}/v1/site`)).json()).pages).to.deep.equal([
      { id, slug: 'about', title: { 'en-AU': 'About' }, description: { 'en-AU': 'About us' } },
    ]);

    const other = await call('POST', '/v1/admin/site/pages', { slug: 'contact', title: { en: 'Contact' }, body: { en: 'Call us' }, published: true });
    expect((await call('PUT', `/v1/admin/site/pages/id/${other.body.id}`, { slug: 'about' })).status).to.equal(409);
    expect((await call('PUT', `/v1/admin/site/pages/id/${other.body.id}`, {})).status).to.equal(400);
    expect((await call('PUT', '/v1/admin/site/pages/id/00000000-0000-4000-8000-000000000000', { published: false })).status).to.equal(404);
    expect((await call('PUT', '/v1/admin/site/pages/id/not-a-uuid', { published: false })).status).to.equal(404);
    expect((await call('GET', '/v1/admin/site/pages')).body.pages.map((p: { slug: string }) => p.slug)).to.deep.equal(['about', 'contact']);

    expect((await call('DELETE', `/v1/admin/site/pages/id/${id}`)).body).to.deep.equal({ deleted: id });
    expect((await call('DELETE', `/v1/admin/site/pages/id/${id}`)).status).to.equal(404);
    expect((await fetch(`${svc.url}/v1/site/pages/about`)).status).to.equal(404);
    expect((await call('GET', '/v1/admin/site/pages/about')).status).to.equal(404);

    const actions = (await call('GET', '/v1/admin/audit?limit=200')).body.entries.map((e: { action: string }) => e.action);
    expect(actions).to.include.members(['page.create', 'page.update', 'page.delete', 'site.settings', 'site.navigation']);
  });

  it("reads an office's settings, listings and keys before anything edits them; an office nothing names is a 404", async () => {
    expect((await call('PUT', '/v1/admin/offices/OFF1', { leadEmail: 'enquiries@agency.example' })).status).to.equal(200);
    const office = await call('GET', '/v1/admin/offices/OFF1');
    expect(office.status).to.equal(200);
    expect(office.body).to.deep.include({ office: 'OFF1', leadEmail: 'enquiries@agency.example' });
    expect(office.body.listingsByStatus.active).to.be.at.least(1);
    expect(office.body.keys.map((k: { status: string }) => k.status)).to.include('active');
    expect(office.body.dropSettings).to.deep.include({ office: 'OFF1', currency: null });
    const unknown = await call('GET', '/v1/admin/offices/NOWHERE7');
    expect([unknown.status, unknown.body.error]).to.deep.equal([404, 'no office NOWHERE7: no listing, feed key or setting names it']);
  });

  it('takes only office ids that are office ids, wherever one enters: keys, office settings, a feed override, the key command', async () => {
    for (const bad of ['bad office id!!', '<script>', 'OFF/1', '-lead']) {
      const body = { clientName: 'x', alertEmail: 'ops@example.com', officeIds: ['OFF1', bad] };
      const created = await call('POST', '/v1/admin/keys', body);
      expect([created.status, created.body.error], bad).to.deep.equal([
        400,
        `body.officeIds[1]: ${JSON.stringify(bad)} is not an office id (${OFFICE_ID_RULE})`,
      ]);
      const requested = await fetch(`${svc.url}/v1/developer/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(requested.status, bad).to.equal(400);
      for (const path of [`/v1/admin/offices/${encodeURIComponent(bad)}`, `/v1/admin/offices/${encodeURIComponent(bad)}/drop-settings`])
        expect((await call('GET', path)).status, `${path}`).to.be.oneOf([400, 404]);
      expect((await call('PUT', `/v1/admin/offices/${encodeURIComponent(bad)}`, { leadEmail: null })).body.error ?? '', bad).to.contain('is not an office id');
      const pushed = await pushFeed(svc.url, key, feed(officeListing('OFF1', 'Z')), { context: { ...AUD, sourceOfficeId: bad } });
      expect([pushed.status, (await pushed.json()).error], bad).to.deep.equal([
        400,
        `context.sourceOfficeId: ${JSON.stringify(bad)} is not an office id (${OFFICE_ID_RULE})`,
      ]);
    }
    expect(
      (await call('POST', '/v1/admin/keys', { clientName: 'x', alertEmail: 'ops@example.com', officeIds: [' OFF5 ', 'Agence_Île-de-France.2'] })).body
        .officeIds,
    ).to.deep.equal(['OFF5', 'Agence_Île-de-France.2']);
    expect(await svc.db('feed_keys').whereRaw("array_to_string(office_ids, ',') LIKE '%<%'").first()).to.equal(undefined);
  });
});
