import { expect } from 'chai';
import { feed } from '../helpers.js';
import { activeKey, directorySettled, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';
import { odataGet, readAll, readMetadata } from './odata-client.js';

const listing = (office: string, id: string, agent: { name: string; email: string }, mod = '2024-03-01-10:00:00') =>
  `<residential modTime="${mod}" status="current"><agentID>${office}</agentID><uniqueID>${id}</uniqueID>` +
  `<listingAgent id="1"><name>${agent.name}</name><email>${agent.email}</email></listingAgent><headline>Home ${id}</headline><price>500000</price>` +
  '<address><streetNumber>1</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address>' +
  `<images><img id="m" url="https://cdn.example/${id}.jpg"/></images></residential>`;

type Stamped = { ModificationTimestamp: string } & Record<string, string>;

for (const database of ['pglite', 'postgres'] as const) {
  describe(`RESO Web API: Member, Office and Media replicate by ModificationTimestamp like Property (${database})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let key: string;
    let root: string;
    before(async () => {
      svc = await startTestService({ database });
      root = `${svc.url}/v1/reso`;
      key = await activeKey(svc.db, ['OFF1', 'OFF2']);
      const ann = { name: 'Ann Smith', email: 'ann@one.example' };
      const bob = { name: 'Bob Jones', email: 'bob@two.example' };
      expect((await pushFeed(svc.url, key, feed(listing('OFF1', 'A1', ann), listing('OFF2', 'B1', bob)))).status).to.equal(200);
      await directorySettled(svc.db);
    });
    after(() => svc.close());

    const newest = (records: Stamped[]) =>
      records
        .map((r) => r.ModificationTimestamp)
        .sort()
        .at(-1)!;
    const changedSince = async (resource: string, key: string, since: string) =>
      (
        await readAll(`${root}/${resource}?$filter=${encodeURIComponent(`ModificationTimestamp gt ${since}`)}&$orderby=ModificationTimestamp,${key}&$top=1`)
      ).records.map((r) => r[key]);

    it('declares ModificationTimestamp on Member, Office and Media, and every record carries one', async () => {
      const metadata = readMetadata(await (await fetch(`${root}/$metadata`)).text());
      for (const [resource, key] of [
        ['Member', 'MemberKey'],
        ['Office', 'OfficeKey'],
        ['Media', 'MediaKey'],
      ]) {
        const declared = metadata.entityTypes.get(resource)!.properties.find((p) => p.name === 'ModificationTimestamp');
        expect(declared?.type, resource).to.equal('Edm.DateTimeOffset');
        const all = await readAll(`${root}/${resource}?$select=${key},ModificationTimestamp&$orderby=ModificationTimestamp,${key}&$top=1`);
        expect(all.records, resource).to.have.length(2);
        for (const record of all.records) expect(record.ModificationTimestamp, `${resource} ${record[key]}`).to.match(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/);
      }
    });

    it('a pass from a checkpoint brings exactly the members, offices and media changed since', async () => {
      const checkpoint = {
        Member: newest((await odataGet(`${root}/Member?$select=MemberKey,ModificationTimestamp`)).body.value),
        Office: newest((await odataGet(`${root}/Office?$select=OfficeKey,ModificationTimestamp`)).body.value),
        Media: newest((await odataGet(`${root}/Media?$select=MediaKey,ModificationTimestamp`)).body.value),
      };
      const before = (await odataGet(`${root}/Member?$select=MemberKey,MemberFullName`)).body.value as Stamped[];
      const annKey = before.find((m) => m.MemberFullName === 'Ann Smith')!.MemberKey;
      // Ann's name changes on a newer version of her listing, and OFF1 gets a second listing.
      const renamed = { name: 'Ann Smith-Lee', email: 'ann@one.example' };
      const pushed = await pushFeed(svc.url, key, feed(listing('OFF1', 'A1', renamed, '2024-03-02-10:00:00'), listing('OFF1', 'A2', renamed)));
      expect(pushed.status).to.equal(200);
      await directorySettled(svc.db);

      expect(await changedSince('Member', 'MemberKey', checkpoint.Member), 'Ann changed, Bob did not').to.deep.equal([annKey]);
      expect((await odataGet(`${root}/Member('${annKey}')`)).body.MemberFullName).to.equal('Ann Smith-Lee');
      expect(await changedSince('Office', 'OfficeKey', checkpoint.Office), 'OFF1 has a listing more; OFF2 is as it was').to.deep.equal(['OFF1']);
      expect(await changedSince('Media', 'MediaKey', checkpoint.Media), "the changed listings' media").to.have.members(['OFF1/A1/photo/m', 'OFF1/A2/photo/m']);
      // Nothing changed since the newest stamps now.
      const latest = newest((await odataGet(`${root}/Member?$select=MemberKey,ModificationTimestamp`)).body.value);
      expect(await changedSince('Member', 'MemberKey', latest)).to.deep.equal([]);
    });
  });
}
