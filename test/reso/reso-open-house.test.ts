import { expect } from 'chai';
import { resoRecord } from '../formats/documents.js';
import { feed } from '../helpers.js';
import { activeKey, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';
import { odataGet, readMetadata } from './odata-client.js';

/**
 * The RESO OpenHouse resource (issue 61): the open homes not yet ended of the listings a public
 * read shows, with the Data Dictionary's fields, by key, filtered, and expanded from Property.
 */

const address = (suburb: string, state: string, postcode: string) =>
  `<address><streetNumber>7</streetNumber><street>Main Street</street><suburb>${suburb}</suburb><state>${state}</state><postcode>${postcode}</postcode></address>`;
const listing = (id: string, inner: string, status = 'current') =>
  `<residential modTime="2026-11-01-10:00:00" status="${status}"><agentID>OFF1</agentID><uniqueID>${id}</uniqueID><headline>Home ${id}</headline><description>Nice.</description><price>900000</price>${inner}</residential>`;
const inspections = (...texts: string[]) => `<inspectionTimes>${texts.map((t) => `<inspection>${t}</inspection>`).join('')}</inspectionTimes>`;

describe('RESO OpenHouse (PostgreSQL)', function () {
  this.timeout(120_000);
  let svc: TestService;
  let root: string;
  let key: string;
  before(async () => {
    svc = await startTestService({ database: 'postgres' });
    root = `${svc.url}/v1/reso`;
    key = await activeKey(svc.db, ['OFF1']);
    const body = await (
      await pushFeed(
        svc.url,
        key,
        feed(
          listing(
            'SYD',
            `${address('Parramatta', 'NSW', '2150')}${inspections('Sat 14-Dec-2030 9:00am - 9:30am', '13-Dec-2030 9:00am to 9:30am', '21-Jan-2009 11:00am to 1:00pm')}`,
          ),
          listing('PER', `${address('Fremantle', 'WA', '6160')}${inspections('12-Dec-2030 7:30am to 8:00am')}`),
          listing('GONE', `${address('Richmond', 'VIC', '3121')}${inspections('12-Dec-2030 10:00am to 10:30am')}`, 'withdrawn'),
        ),
      )
    ).json();
    expect(body.counts, JSON.stringify(body.issues)).to.deep.equal({ parsed: 3, valid: 3, invalid: 0 });
  });
  after(() => svc.close());

  it('serves the open homes to come of public listings with the Data Dictionary fields', async () => {
    const { status, body } = await odataGet(`${root}/OpenHouse?$orderby=OpenHouseStartTime`);
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(body.value.map(({ '@odata.id': _id, ModificationTimestamp: _m, ...rest }: Record<string, unknown>) => rest)).to.deep.equal([
      {
        OpenHouseKey: 'OFF1/PER/20301211T233000Z',
        ListingKey: 'OFF1/PER',
        ListingId: 'PER',
        OpenHouseDate: '2030-12-12',
        OpenHouseStartTime: '2030-12-11T23:30:00.000000Z',
        OpenHouseEndTime: '2030-12-12T00:00:00.000000Z',
        OpenHouseStatus: 'Active',
      },
      {
        OpenHouseKey: 'OFF1/SYD/20301212T220000Z',
        ListingKey: 'OFF1/SYD',
        ListingId: 'SYD',
        OpenHouseDate: '2030-12-13',
        OpenHouseStartTime: '2030-12-12T22:00:00.000000Z',
        OpenHouseEndTime: '2030-12-12T22:30:00.000000Z',
        OpenHouseStatus: 'Active',
      },
      {
        OpenHouseKey: 'OFF1/SYD/20301213T220000Z',
        ListingKey: 'OFF1/SYD',
        ListingId: 'SYD',
        OpenHouseDate: '2030-12-14',
        OpenHouseStartTime: '2030-12-13T22:00:00.000000Z',
        OpenHouseEndTime: '2030-12-13T22:30:00.000000Z',
        OpenHouseStatus: 'Active',
      },
    ]);
    for (const record of body.value) expect(record.ModificationTimestamp).to.be.a('string');
  });

  it('reads one by key, filters them, and declares them in the metadata', async () => {
    const one = await odataGet(`${root}/OpenHouse('OFF1%2FPER%2F20301211T233000Z')`);
    expect(one.status, JSON.stringify(one.body)).to.equal(200);
    expect(one.body.ListingKey).to.equal('OFF1/PER');
    const filtered = await odataGet(`${root}/OpenHouse?$filter=ListingKey eq 'OFF1/SYD' and OpenHouseDate eq 2030-12-14`);
    expect(filtered.body.value.map((r: { OpenHouseKey: string }) => r.OpenHouseKey)).to.deep.equal(['OFF1/SYD/20301213T220000Z']);
    const metadataText = await (await fetch(`${root}/$metadata`)).text();
    const metadata = readMetadata(metadataText);
    expect(metadata.entityTypes.get('OpenHouse')?.properties.map((p) => p.name)).to.include.members([
      'OpenHouseKey',
      'ListingKey',
      'OpenHouseDate',
      'OpenHouseStartTime',
      'OpenHouseEndTime',
      'OpenHouseStatus',
      'ModificationTimestamp',
    ]);
    expect(metadata.entityTypes.get('Property')?.navigation).to.include('OpenHouse');
    expect(metadataText).to.include('<NavigationProperty Name="OpenHouse" Type="Collection(org.reso.metadata.OpenHouse)"/>');
  });

  it('expands OpenHouse from Property, soonest first', async () => {
    const { status, body } = await odataGet(`${root}/Property('OFF1%2FSYD')?$expand=OpenHouse`);
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(body.OpenHouse.map((o: { OpenHouseStartTime: string }) => o.OpenHouseStartTime)).to.deep.equal([
      '2030-12-12T22:00:00.000000Z',
      '2030-12-13T22:00:00.000000Z',
    ]);
    const page = await odataGet(`${root}/Property?$expand=OpenHouse&$orderby=ListingKey`);
    expect(page.body.value.map((p: { ListingKey: string; OpenHouse: unknown[] }) => [p.ListingKey, p.OpenHouse.length])).to.deep.equal([
      ['OFF1/PER', 1],
      ['OFF1/SYD', 2],
    ]);
  });

  it('fills the same open homes from a RESO feed that carries its open houses', async () => {
    const res = await fetch(`${svc.url}/v1/feeds?format=reso&currency=AUD`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        value: [
          resoRecord({
            ListingKey: 'R1',
            OpenHouse: [
              { OpenHouseKey: 'x', OpenHouseStartTime: '2030-12-14T10:00:00+11:00', OpenHouseEndTime: '2030-12-14T10:45:00+11:00', OpenHouseStatus: 'Active' },
            ],
          }),
        ],
      }),
    });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).to.equal(200);
    expect(body.counts.valid, JSON.stringify(body.issues)).to.equal(1);
    const { body: page } = await odataGet(`${root}/OpenHouse?$filter=ListingKey eq 'OFF1/R1'`);
    expect(page.value.map((o: Record<string, string>) => [o.OpenHouseKey, o.OpenHouseDate, o.OpenHouseStartTime])).to.deep.equal([
      ['OFF1/R1/20301213T230000Z', '2030-12-14', '2030-12-13T23:00:00.000000Z'],
    ]);
    const listing = await (await fetch(`${svc.url}/v1/listings/OFF1/R1`)).json();
    expect(listing.openHomes).to.deep.equal([{ start: '2030-12-13T23:00:00Z', end: '2030-12-13T23:45:00Z' }]);
  });
});
