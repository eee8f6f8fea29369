import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { projectDoc, resoRecord } from '../formats/documents.js';
import { AU_CONTEXT, feed } from '../helpers.js';
import { startTestService, type TestService } from '../service.js';
import { activeKey, admin, officeListing, pushFeed } from './client.js';

describe('Ingestion on the embedded default (PGlite, in-process queue, outbox files)', function () {
  this.timeout(30_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ database: 'pglite' });
  });
  after(() => svc.close());

  it('requests a key, has it approved, pushes a feed, and mails failures into DATA_DIR/outbox', async () => {
    const created = await (
      await fetch(`${svc.url}/v1/developer/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientName: 'Embedded CRM', alertEmail: 'it@agency.example', officeIds: ['OFF1'] }),
      })
    ).json();
    expect((await admin(svc.url, 'POST', `/v1/admin/keys/${created.id}/approve`)).status).to.equal(200);

    const res = await pushFeed(
      svc.url,
      created.key,
      feed(
        officeListing('OFF1', 'A'),
        officeListing('OFF1', 'B'),
        '<residential modTime="2024-03-01-10:00:00" status="current"><agentID>OFF1</agentID><uniqueID>C</uniqueID></residential>',
      ),
      { mode: 'full' },
    );
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).to.equal(200);
    expect(body.summary).to.deep.equal({ inserted: 2, updated: 0, unchanged: 0, stale_ignored: 0 });
    expect(body.reconcile).to.deep.include({ status: 'applied', archived: 0 });
    expect(await svc.db('listings').pluck('listing_key')).to.have.members(['OFF1/A', 'OFF1/B']);

    const again = await (await pushFeed(svc.url, created.key, feed(officeListing('OFF1', 'A')), { mode: 'full' })).json();
    expect(again.summary.unchanged).to.equal(1);
    expect(again.reconcile.archived).to.equal(1);

    const outbox = join(svc.dataDir, 'outbox');
    let files: string[] = [];
    for (let i = 0; i < 50 && files.length === 0; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
      try {
        files = readdirSync(outbox);
      } catch {
        files = [];
      }
    }
    expect(files).to.have.length(1);
    const mail = readFileSync(join(outbox, files[0]), 'utf8');
    expect(mail).to.match(/^To: it@agency\.example$/m);
    expect(mail).to.contain('missing_address');
  });

  it('ingests RESO and project documents and serves projects with their listings', async () => {
    const key = await activeKey(svc.db, ['OFF1']);
    const push = async (format: string, doc: unknown, mode = 'incremental') => {
      const res = await fetch(`${svc.url}/v1/feeds`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ xml: JSON.stringify(doc), format, mode, context: AU_CONTEXT }),
      });
      expect(res.status).to.equal(200);
      return res.json();
    };
    expect((await push('reso', { value: [resoRecord()] })).upserts).to.deep.equal([{ listingKey: 'OFF1/a1', action: 'inserted' }]);
    const projects = await push('project', projectDoc(), 'full');
    expect(projects.projects.summary.inserted).to.equal(1);
    expect(projects.reconcile.offices[0].archived).to.equal(0); // the REAXML and RESO listings are not the project feed's
    const one = await (await fetch(`${svc.url}/v1/projects/OFF1/HV`)).json();
    expect(one.listings.map((l: { uniqueId: string }) => l.uniqueId)).to.deep.equal(['HV-101', 'HV-502', 'HV-R1']);
    expect((await (await fetch(`${svc.url}/v1/projects?stage=off_the_plan&country=AU`)).json()).total).to.equal(1);
  });
});
