import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { createProjectReads } from '../../db/project-reads.js';
import { feed } from '../helpers.js';
import { AUD, activeKey, admin, officeListing, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';
import { projectDoc, resoRecord } from './documents.js';

const valid = (schema: string, body: unknown) => expect(validatorFor(schema)(body), JSON.stringify(validatorFor(schema).errors)).to.equal(true);

describe('RESO and project feeds through /v1/validate, /v1/feeds and the projects reads (PostgreSQL)', function () {
  this.timeout(30_000);
  let svc: TestService;
  let key: string;
  before(async () => {
    svc = await startTestService({ database: 'postgres', env: { CIRCUIT_BREAKER_MIN: '2', CIRCUIT_BREAKER_RATIO: '0.5' } });
    key = await activeKey(svc.db, ['OFF1', 'OFF2']);
  });
  after(() => svc.close());

  /** The document as the JSON feed request body, or as the raw body with format in the query. */
  const send = (path: string, format: 'reso' | 'project', doc: unknown, options: { raw?: boolean; mode?: 'full' | 'incremental' } = {}) =>
    fetch(options.raw ? `${svc.url}${path}?format=${format}&currency=AUD${options.mode ? `&mode=${options.mode}` : ''}` : `${svc.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(path === '/v1/feeds' ? { authorization: `Bearer ${key}` } : {}) },
      body: options.raw ? JSON.stringify(doc) : JSON.stringify({ xml: JSON.stringify(doc), format, mode: options.mode, context: AUD }),
    });
  const ingest = async (format: 'reso' | 'project', doc: unknown, options: { raw?: boolean; mode?: 'full' | 'incremental' } = {}) => {
    const res = await send('/v1/feeds', format, doc, options);
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).to.equal(200);
    valid('IngestionResult', body);
    return body;
  };
  const get = async (path: string) => {
    const res = await fetch(`${svc.url}${path}`);
    return { status: res.status, body: await res.json() };
  };

  describe('RESO', () => {
    const collection = {
      '@odata.context': '$metadata#Property',
      value: [
        resoRecord(),
        resoRecord({ ListingKey: 'a2', StandardStatus: 'Active Under Contract', ListPrice: 990000 }),
        resoRecord({ ListingKey: 'bad', StandardStatus: 'Sold-ish' }),
      ],
    };

    for (const raw of [false, true]) {
      it(`validates a collection with an invalid record among valid ones (${raw ? 'raw JSON body' : 'JSON feed request'})`, async () => {
        const res = await send('/v1/validate', 'reso', collection, { raw });
        const body = await res.json();
        expect(res.status).to.equal(200);
        valid('ValidationResult', body);
        expect(body.counts).to.deep.equal({ parsed: 3, valid: 2, invalid: 1 });
        expect(body.issues.filter((i: any) => i.level === 'error').map((i: any) => [i.code, i.listingIndex, i.path])).to.deep.equal([
          ['unknown_status', 2, '/value/2/StandardStatus'],
        ]);
        expect(
          await svc
            .db('listings')
            .where({ format: 'reso' })
            .count({ n: '*' })
            .then(([r]) => Number(r.n)),
        ).to.equal(0);
      });
    }

    it('ingests the valid records, finds a raw re-send unchanged, and serves them in search', async () => {
      const first = await ingest('reso', collection);
      expect(first.ok).to.equal(false);
      expect(first.counts).to.deep.equal({ parsed: 3, valid: 2, invalid: 1 });
      expect(first.upserts).to.deep.equal([
        { listingKey: 'OFF1/a1', action: 'inserted' },
        { listingKey: 'OFF1/a2', action: 'inserted' },
      ]);
      const stored = await svc.db('listings').where({ listing_key: 'OFF1/a2' }).first();
      expect(stored).to.include({ format: 'reso', status: 'under_offer' });
      expect(stored.data.price).to.deep.include({ amount: 990000, currency: 'AUD' });

      const again = await ingest('reso', collection, { raw: true });
      expect(again.summary).to.deep.equal({ inserted: 0, updated: 0, unchanged: 2, stale_ignored: 0 });

      const changed = await ingest('reso', { value: [resoRecord({ ListPrice: 1300000, ModificationTimestamp: '2024-06-01T00:00:00Z' })] }, { raw: true });
      expect(changed.upserts).to.deep.equal([{ listingKey: 'OFF1/a1', action: 'updated' }]);
      const search = await get('/v1/listings?office=OFF1');
      expect(search.body.listings.map((l: any) => [l.listingKey, l.format])).to.deep.include.members([
        ['OFF1/a1', 'reso'],
        ['OFF1/a2', 'reso'],
      ]);
    });

    it('answers 400 with line and column for a broken document, and 415 for a RESO document sent as XML', async () => {
      const broken = await fetch(`${svc.url}/v1/validate?format=reso`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"value": [\n{"ListingKey": }]}',
      });
      expect(broken.status).to.equal(400);
      expect((await broken.json()).error).to.match(/not valid JSON: a value is expected \(line 2, column 16\)/);
      const asXml = await fetch(`${svc.url}/v1/validate?format=reso`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '{}' });
      expect(asXml.status).to.equal(415);
      expect((await asXml.json()).error).to.contain('send it as application/json');
      const badFormat = await fetch(`${svc.url}/v1/validate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ xml: '{}', format: 'csv' }),
      });
      expect(badFormat.status).to.equal(400);
      const badQueryFormat = await fetch(`${svc.url}/v1/validate?format=csv`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(badQueryFormat.status).to.equal(400);
      expect((await badQueryFormat.json()).error).to.contain('query.format must be reso or project');
    });
  });

  describe('projects', () => {
    it('validates a project document through both body forms without storing it', async () => {
      for (const raw of [false, true]) {
        const res = await send('/v1/validate', 'project', projectDoc(), { raw });
        const body = await res.json();
        expect(res.status).to.equal(200);
        valid('ValidationResult', body);
        expect(body.projects.counts).to.deep.equal({ parsed: 1, valid: 1, invalid: 0 });
        expect(body.projects.previews[0].priceRange).to.deep.equal({ from: 750000, to: 2100000, currency: 'AUD', derived: true });
      }
      expect(Number((await svc.db('projects').count({ n: '*' }))[0].n)).to.equal(0);
    });

    it('ingests projects with and without a price range, then serves them and their public listings', async () => {
      const doc = projectDoc({}, [
        projectDoc({
          uniqueId: 'GV',
          name: 'Garden Village',
          stage: 'completed',
          priceFrom: 400000,
          priceTo: 900000,
          address: { locality: 'Glenelg', region: 'SA', postcode: '5045' },
          listings: [
            { uniqueId: 'GV-1', price: 450000 },
            { uniqueId: 'GV-2', price: 800000, status: 'withdrawn' },
          ],
        }).projects[0],
      ]);
      const first = await ingest('project', doc);
      expect(first.ok, JSON.stringify(first.issues)).to.equal(true);
      expect(first.projects).to.deep.equal({
        counts: { parsed: 2, valid: 2, invalid: 0 },
        summary: { inserted: 2, updated: 0, unchanged: 0, stale_ignored: 0 },
        upserts: [
          { projectKey: 'OFF1/HV', action: 'inserted' },
          { projectKey: 'OFF1/GV', action: 'inserted' },
        ],
      });
      expect(first.summary).to.deep.equal({ inserted: 5, updated: 0, unchanged: 0, stale_ignored: 0 });

      const list = await get('/v1/projects');
      expect(list.status).to.equal(200);
      valid('ProjectPage', list.body);
      expect(list.body.total).to.equal(2);
      expect((await get('/v1/projects?stage=completed')).body.projects.map((p: any) => [p.projectKey, p.priceRange])).to.deep.equal([
        ['OFF1/GV', { from: 400000, to: 900000, currency: 'AUD', derived: false }],
      ]);
      expect((await get('/v1/projects?country=au&office=OFF1&limit=1&offset=1')).body).to.deep.include({ total: 2 });
      expect((await get('/v1/projects?office=OFF2')).body).to.deep.equal({ total: 0, projects: [], nextOffset: null });
      expect((await get('/v1/projects?limit=1')).body.nextOffset).to.equal(1);
      const bad = await get('/v1/projects?stage=dreaming&limit=500');
      expect(bad.status).to.equal(400);
      expect(bad.body.error).to.contain('query.stage').and.contain('query.limit');

      const one = await get('/v1/projects/OFF1/GV');
      expect(one.status).to.equal(200);
      valid('ProjectWithListings', one.body);
      expect(one.body.listingKeys).to.deep.equal(['OFF1/GV-1', 'OFF1/GV-2']);
      expect(one.body.listings.map((l: any) => [l.listingKey, l.projectKey])).to.deep.equal([['OFF1/GV-1', 'OFF1/GV']]); // the withdrawn child is not public
      const hv = (await get('/v1/projects/OFF1/HV')).body;
      expect([hv.listings.map((l: any) => l.uniqueId), hv.listingsOmitted]).to.deep.equal([['HV-101', 'HV-502', 'HV-R1'], 0]);
      // A byte budget that the first two listings fit (PostgreSQL's text of them has a space after
      // each colon and comma, hence the margin), and the third does not: it is left out and counted.
      const [size1, size2] = hv.listings.map((l: unknown) => Buffer.byteLength(JSON.stringify(l)));
      const budget = Math.round((size1 + size2) * 1.25);
      const capped = JSON.parse((await createProjectReads(svc.db, { pageMaxBytes: budget }).getProjectJson('OFF1', 'HV')) ?? 'null');
      expect([capped.listings.map((l: any) => l.uniqueId), capped.listingsOmitted]).to.deep.equal([['HV-101', 'HV-502'], 1]);
      const tiny = JSON.parse((await createProjectReads(svc.db, { pageMaxBytes: 1 }).getProjectJson('OFF1', 'HV')) ?? 'null');
      expect([tiny.listings.map((l: any) => l.uniqueId), tiny.listingsOmitted], 'the first listing is always shown').to.deep.equal([['HV-101'], 2]);
      expect((await get('/v1/projects/OFF1/NOPE')).status).to.equal(404);
      expect((await get('/v1/listings/OFF1/GV-1')).body.projectKey).to.equal('OFF1/GV');
    });

    it('finds a re-sent project unchanged, updates a changed one and ignores a stale one', async () => {
      const again = await ingest('project', projectDoc(), { raw: true });
      expect(again.projects.summary).to.deep.equal({ inserted: 0, updated: 0, unchanged: 1, stale_ignored: 0 });
      expect(again.summary).to.deep.include({ unchanged: 3 });
      const changed = await ingest('project', projectDoc({ modTime: '2026-11-02T09:00:00', stage: 'under_construction' }));
      expect(changed.projects.upserts).to.deep.equal([{ projectKey: 'OFF1/HV', action: 'updated' }]);
      expect((await get('/v1/projects/OFF1/HV')).body.stage).to.equal('under_construction');
      const stale = await ingest('project', projectDoc({ modTime: '2026-10-01T09:00:00', stage: 'completed' }));
      expect(stale.projects.upserts).to.deep.equal([{ projectKey: 'OFF1/HV', action: 'stale_ignored' }]);
    });

    it("full mode archives only what the feed owns: projects and their listings, never the office's other listings", async () => {
      const reaxml = await pushFeed(svc.url, key, feed(officeListing('OFF1', 'PLAIN')), { mode: 'incremental' });
      expect(reaxml.status).to.equal(200);
      // A full listing feed leaves project listings alone.
      const fullListings = await pushFeed(
        svc.url,
        key,
        feed(
          officeListing('OFF1', 'PLAIN'),
          officeListing('OFF1', 'a1', { modTime: '2024-07-01-10:00:00' }),
          officeListing('OFF1', 'a2', { modTime: '2024-07-01-10:00:00' }),
        ),
        { mode: 'full' },
      );
      const listingsResult = await fullListings.json();
      expect(listingsResult.reconcile.offices[0]).to.deep.include({ archived: 0, absent: 0 });
      expect((await svc.db('listings').where({ listing_key: 'OFF1/GV-1' }).first()).status).to.equal('active');

      // A full project feed without Garden Village archives it and its listings, and leaves PLAIN alone.
      const full = await ingest('project', projectDoc({ modTime: '2026-11-03T09:00:00', stage: 'under_construction' }), { mode: 'full' });
      expect(full.reconcile.status).to.equal('applied');
      expect(full.reconcile.offices[0]).to.deep.include({
        office: 'OFF1',
        absent: 2,
        archived: 2,
        projects: { present: 1, nonArchived: 2, absent: 1, archived: 1 },
      });
      expect((await get('/v1/projects/OFF1/GV')).status).to.equal(404);
      expect((await svc.db('listings').where({ listing_key: 'OFF1/GV-1' }).first()).status).to.equal('archived');
      expect((await svc.db('listings').where({ listing_key: 'OFF1/PLAIN' }).first()).status).to.equal('active');
      expect((await get('/v1/projects')).body.total).to.equal(1);
    });

    it("trips the breaker when a full project feed would remove most of an office's projects, holding projects and listings together", async () => {
      const three = projectDoc({ office: 'OFF2', uniqueId: 'P1', listings: [{ uniqueId: 'P1-1', price: 1 }] }, [
        projectDoc({ office: 'OFF2', uniqueId: 'P2', listings: [{ uniqueId: 'P2-1', price: 1 }] }).projects[0],
        projectDoc({ office: 'OFF2', uniqueId: 'P3', listings: [{ uniqueId: 'P3-1', price: 1 }] }).projects[0],
      ]);
      await ingest('project', three);
      const tripped = await ingest('project', projectDoc({ office: 'OFF2', uniqueId: 'P1', listings: [{ uniqueId: 'P1-1', price: 1 }] }), { mode: 'full' });
      expect(tripped.reconcile.status).to.equal('tripped');
      expect(tripped.reconcile.offices[0]).to.deep.include({ archived: 0, tripped: true, projects: { present: 1, nonArchived: 3, absent: 2, archived: 0 } });
      const { items } = await (await admin(svc.url, 'GET', '/v1/admin/quarantine')).json();
      const item = items.find((i: any) => i.id === tripped.reconcile.offices[0].quarantineId);
      valid('QuarantineItem', item);
      expect(item.projectKeys).to.deep.equal(['OFF2/P2', 'OFF2/P3']);
      expect(item.keys).to.deep.equal(['OFF2/P2-1', 'OFF2/P3-1']);
      const applied = await (await admin(svc.url, 'POST', `/v1/admin/quarantine/${item.id}/resolve`, { action: 'apply' })).json();
      expect(applied.appliedCount).to.equal(4);
      expect((await get('/v1/projects?office=OFF2')).body.total).to.equal(1);
    });
  });
  describe('control characters', () => {
    it('strips NUL and other control characters with a warning, in the dry run and in ingestion alike', async () => {
      const doc = { value: [resoRecord({ ListingKey: 'nul1', PublicRemarks: 'Quiet\u0000 street\u0007.', 'Odd\u0000Field': 'x' })] };
      const dry = await (await send('/v1/validate', 'reso', doc, { raw: true })).json();
      expect(dry.counts).to.deep.equal({ parsed: 1, valid: 1, invalid: 0 });
      const stripped = (issues: any[]) => issues.filter((i) => i.code === 'invalid_character_stripped').map((i) => [i.path, i.listingIndex]);
      expect(stripped(dry.issues)).to.deep.equal([
        ['/value/0/PublicRemarks', 0],
        ['/value/0/OddField', 0],
      ]);
      expect(dry.listings[0].description).to.deep.equal({ 'en-AU': 'Quiet street.' });
      const live = await ingest('reso', doc, { raw: true });
      expect(live.upserts).to.deep.equal([{ listingKey: 'OFF1/nul1', action: 'inserted' }]);
      expect(stripped(live.issues)).to.deep.equal(stripped(dry.issues));
      expect((await svc.db('listings').where({ listing_key: 'OFF1/nul1' }).first()).data.description).to.deep.equal({ 'en-AU': 'Quiet street.' });

      const project = projectDoc({ uniqueId: 'NUL', name: 'Null\u0000 Towers' });
      for (const l of project.projects[0].listings as Record<string, unknown>[]) l.uniqueId = `NUL-${l.uniqueId}`;
      (project.projects[0].listings as Record<string, unknown>[])[0].headline = 'One\u0000 bedroom';
      const projectDry = await (await send('/v1/validate', 'project', project, { raw: true })).json();
      expect(projectDry.ok, JSON.stringify(projectDry.issues)).to.equal(true);
      expect(stripped(projectDry.issues)).to.deep.equal([
        ['/projects/0/name', null],
        ['/projects/0/listings/0/headline', 0],
      ]);
      const projectLive = await ingest('project', project, { raw: true });
      expect(projectLive.ok, JSON.stringify(projectLive.issues)).to.equal(true);
      expect((await svc.db('projects').where({ unique_id: 'NUL' }).first()).data.name).to.equal('Null Towers');
    });
  });
  describe('newest modTime', () => {
    it('judges a project against the newest modTime seen, even when that one changed nothing', async () => {
      const at = (modTime: string, name: string) => {
        const doc = projectDoc({ uniqueId: 'MTP', name, modTime });
        for (const l of doc.projects[0].listings as Record<string, unknown>[]) l.uniqueId = `MTP-${l.uniqueId}`;
        return doc;
      };
      expect((await ingest('project', at('2026-10-01T09:00:00', 'Harbour View'), { raw: true })).projects.summary.inserted).to.equal(1);
      expect((await ingest('project', at('2026-10-03T09:00:00', 'Harbour View'), { raw: true })).projects.summary.unchanged).to.equal(1);
      const between = await ingest('project', at('2026-10-02T09:00:00', 'Renamed between'), { raw: true });
      expect(between.projects.upserts).to.deep.equal([{ projectKey: 'OFF1/MTP', action: 'stale_ignored' }]);
      expect((await svc.db('projects').where({ unique_id: 'MTP' }).first()).data.name).to.equal('Harbour View');
    });
  });
});
