import { expect } from 'chai';
import { activeKey, directorySettled } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';
import { MLS_EXPORTS } from './documents.js';

const OFFICES = ['STL-OFF-9', 'BCH-OFF-2', 'MRED-OFF-1', 'CREA-OFF-7'];
/** A US MLS feed as raw RESO JSON: country and currency in the query, no locale. */
const RAW = '?format=reso&country=US&currency=USD';

describe('RESO MLS exports through the dry run, ingestion and every public read (PostgreSQL)', function () {
  this.timeout(30_000);
  let svc: TestService;
  let key: string;
  before(async () => {
    svc = await startTestService({ database: 'postgres' });
    key = await activeKey(svc.db, OFFICES);
  });
  after(() => svc.close());

  const post = async (path: string, body: string) => {
    const res = await fetch(`${svc.url}${path}${RAW}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(path === '/v1/feeds' ? { authorization: `Bearer ${key}` } : {}) },
      body,
    });
    const answer = await res.json();
    expect(res.status, JSON.stringify(answer)).to.equal(200);
    return answer;
  };
  const get = async (path: string) => {
    // The directory follows a feed's answer by a few milliseconds.
    if (/^\/v1\/(agents|offices)/.test(path)) await directorySettled(svc.db);
    const res = await fetch(`${svc.url}${path}`);
    return { status: res.status, body: await res.json() };
  };
  const ids = (body: { listings: { uniqueId: string }[] }) => body.listings.map((l) => l.uniqueId).sort();

  it('agrees between dry run and ingestion, takes a removed listing down, and keeps a withheld one out of every public read', async () => {
    // The listing MLS Grid later removes is live first.
    const live = JSON.stringify({
      value: [
        {
          ListingKey: 'MRD12340000',
          ListOfficeKey: 'MRED-OFF-1',
          StandardStatus: 'Active',
          PropertyType: 'Residential',
          ListPrice: 250000,
          City: 'Oak Lawn',
          StateOrProvince: 'IL',
          PostalCode: '60453',
          StreetNumber: '1',
          StreetName: 'Elm',
          ModificationTimestamp: '2026-11-01T00:00:00Z',
        },
      ],
    });
    await post('/v1/feeds', live);
    expect((await get('/v1/listings/MRED-OFF-1/MRD12340000')).status).to.equal(200);

    const dry = await post('/v1/validate', MLS_EXPORTS);
    const pushed = await post('/v1/feeds', MLS_EXPORTS);
    expect(pushed.counts).to.deep.equal(dry.counts);
    const codes = (issues: { code: string; path: string }[]) => issues.map((i) => `${i.path} ${i.code}`).sort();
    expect(codes(pushed.issues)).to.deep.equal(codes(dry.issues));
    // What the dry run previews is what ingestion stored (the removal: stored content kept, status archived).
    for (const preview of dry.listings) {
      const stored = await svc.db('listings').where({ listing_key: preview.listingKey }).first();
      if (preview.uniqueId === 'MRD12340000') {
        expect([stored.status, stored.data.price.amount, stored.data.address.locality]).to.deep.equal(['archived', 250000, 'Oak Lawn']);
        continue;
      }
      const { contentHash: _a, hidden: _b, ...want } = preview;
      const { contentHash: _c, hidden: _d, ...got } = stored.data;
      expect(got, preview.listingKey).to.deep.equal(want);
    }
    expect((await svc.db('listings').where({ listing_key: 'STL-OFF-9/STL-1001' }).first()).data.description).to.deep.equal({
      'en-US': 'Bay views from the 12th floor.',
    });

    // Withheld by the MLS (InternetEntireListingDisplayYN false) and removed (MlgCanView false): in no public read.
    expect(ids((await get('/v1/listings?office=MRED-OFF-1')).body)).to.deep.equal(['MRD12345679']);
    for (const id of ['MRD12345678', 'MRD12340000']) expect((await get(`/v1/listings/MRED-OFF-1/${id}`)).status, id).to.equal(404);
    expect((await get('/v1/offices?office=MRED-OFF-1')).body.offices[0].listingCount).to.equal(1);
    const enquiry = await fetch(`${svc.url}/v1/leads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ listing: { office: 'MRED-OFF-1', uniqueId: 'MRD12345678' }, contact: { email: 'jo@home.example', message: 'Hi' }, consent: true }),
    });
    expect(enquiry.status, 'no enquiry about a withheld listing').to.equal(404);

    // The address withheld: no street, a locality-level point; the rules for consumers are in the answer.
    const beach = (await get('/v1/listings/BCH-OFF-2/20261101000123456789000000')).body;
    expect([beach.address.street, beach.address.streetNumber, beach.location.precision]).to.deep.equal([null, null, 'locality']);
    expect(JSON.stringify(beach)).to.not.contain('26.93421');
    expect(beach.internetDisplay).to.deep.equal({ address: false, automatedValuation: false, consumerComments: false, idxParticipation: true });
    expect(ids((await get('/v1/listings?office=CREA-OFF-7')).body)).to.deep.equal(['28765432']);

    // The office directory names the office as its source does, and finds it by that name.
    const office = (await get('/v1/offices?office=STL-OFF-9')).body.offices[0];
    // ...with the logo its listings' Media gives (MediaCategory Office Logo), which is not a listing photo.
    expect(office).to.deep.include({
      office: 'STL-OFF-9',
      name: 'Bayside Realty Group',
      phone: '813-555-0100',
      logoUrl: 'https://photos.example.org/offices/stl-off-9/logo.png',
    });
    const bay = (await get('/v1/listings/STL-OFF-9/STL-1001')).body;
    expect(bay.listingOffices[0].logoUrl).to.equal('https://photos.example.org/offices/stl-off-9/logo.png');
    expect(JSON.stringify(bay.media)).to.not.contain('logo.png');
    expect((await get('/v1/offices?query=bayside')).body.offices.map((o: { office: string }) => o.office)).to.deep.equal(['STL-OFF-9']);
    expect((await get('/v1/offices?office=MRED-OFF-1')).body.offices[0]).to.deep.include({ name: null, phone: null, logoUrl: null });
  });

  it('lets a newer record bring a withheld listing back, and compares timestamps to the millisecond', async () => {
    const record = (over: Record<string, unknown>) =>
      JSON.stringify({
        value: [
          {
            ListingKey: 'MRD12345678',
            ListOfficeKey: 'MRED-OFF-1',
            StandardStatus: 'Active',
            PropertyType: 'Residential',
            ListPrice: 329000,
            StreetNumber: '9800',
            StreetName: 'Cicero',
            City: 'Oak Lawn',
            StateOrProvince: 'IL',
            PostalCode: '60453',
            ...over,
          },
        ],
      });
    const shown = await post('/v1/feeds', record({ InternetEntireListingDisplayYN: true, ModificationTimestamp: '2026-11-22T16:40:00.002Z' }));
    expect(shown.summary).to.deep.include({ updated: 1 });
    expect((await get('/v1/listings/MRED-OFF-1/MRD12345678')).status).to.equal(200);
    // One millisecond older than the stored record: stale, ignored.
    const older = await post('/v1/feeds', record({ InternetEntireListingDisplayYN: false, ModificationTimestamp: '2026-11-22T16:40:00.001Z' }));
    expect(older.summary).to.deep.include({ stale_ignored: 1 });
    expect((await get('/v1/listings/MRED-OFF-1/MRD12345678')).status).to.equal(200);
  });

  it('serves back the StandardStatus the source gave: Pending and ActiveUnderContract stay apart', async () => {
    const record = (ListingKey: string, StandardStatus: string) => ({
      ListingKey,
      ListOfficeKey: 'STL-OFF-9',
      StandardStatus,
      PropertyType: 'Residential',
      ListPrice: 410000,
      StreetNumber: '12',
      StreetName: 'Pine',
      City: 'Saint Louis',
      StateOrProvince: 'MO',
      PostalCode: '63101',
      ModificationTimestamp: '2026-11-20T10:00:00Z',
    });
    const pushed = await post(
      '/v1/feeds',
      JSON.stringify({ value: [record('STS-P', 'Pending'), record('STS-U', 'ActiveUnderContract'), record('STS-W', 'Active Under Contract')] }),
    );
    expect(pushed.counts).to.deep.include({ valid: 3, invalid: 0 });
    const served = await get(
      "/v1/reso/Property?$filter=ListingKey in ('STL-OFF-9/STS-P','STL-OFF-9/STS-U','STL-OFF-9/STS-W')&$select=ListingKey,StandardStatus&$orderby=ListingKey",
    );
    expect(served.status, JSON.stringify(served.body)).to.equal(200);
    expect(served.body.value.map((r: { ListingKey: string; StandardStatus: string }) => [r.ListingKey, r.StandardStatus])).to.deep.equal([
      ['STL-OFF-9/STS-P', 'Pending'],
      // The Data Dictionary's display name, whichever spelling was fed (docs/reso.md, Lookups).
      ['STL-OFF-9/STS-U', 'Active Under Contract'],
      ['STL-OFF-9/STS-W', 'Active Under Contract'],
    ]);
    const pending = await get("/v1/reso/Property?$filter=StandardStatus eq org.reso.metadata.enums.StandardStatus'Pending'&$select=ListingKey");
    expect(pending.body.value.map((r: { ListingKey: string }) => r.ListingKey)).to.deep.equal(['STL-OFF-9/STS-P']);
    // The canonical listing keeps it too, beside the standard status.
    expect((await get('/v1/listings/STL-OFF-9/STS-P')).body).to.deep.include({ status: 'under_offer', standardStatus: 'Pending' });
  });
});
