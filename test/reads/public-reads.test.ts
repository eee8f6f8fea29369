import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { refreshDirectory } from '../../db/directory.js';
import type { ListingSearch } from '../../db/listing-search/search.js';
import { createPublicReads, DIRECTORY_LOCALITIES_SHOWN, type DirectoryQuery } from '../../db/public-reads.js';
import { feed } from '../helpers.js';
import { activeKey, directorySettled, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';

const NEWEST: ListingSearch['sort'] = { key: 'newest', reverse: false };

interface Spec {
  office: string;
  id: string;
  kind?: string;
  status?: string;
  day: number;
  price?: number;
  rent?: [number, 'week' | 'month'];
  beds?: number;
  suburb?: [string, string, string];
  country?: string;
  agent?: [string, string | null];
}

function xml(s: Spec): string {
  const kind = s.kind ?? (s.rent ? 'rental' : 'residential');
  const [suburb, state, postcode] = s.suburb ?? ['Richmond', 'VIC', '3121'];
  const money = s.rent ? `<rent period="${s.rent[1]}">${s.rent[0]}</rent>` : s.price ? `<price>${s.price}</price>` : '';
  const agent = s.agent
    ? `<listingAgent id="1"><name>${s.agent[0]}</name>${s.agent[1] ? `<email>${s.agent[1]}</email>` : ''}<telephone type="BH">03 9000 0000</telephone></listingAgent>`
    : '';
  return (
    `<${kind} modTime="2024-03-${String(s.day).padStart(2, '0')}-10:00:00" status="${s.status ?? 'current'}"><agentID>${s.office}</agentID><uniqueID>${s.id}</uniqueID>` +
    `${agent}<headline>${s.id}</headline>${money}<features><bedrooms>${s.beds ?? 3}</bedrooms></features>` +
    `<address><streetNumber>1</streetNumber><street>Main Road</street><suburb>${suburb}</suburb><state>${state}</state><postcode>${postcode}</postcode>${s.country ? `<country>${s.country}</country>` : ''}</address></${kind}>`
  );
}

const LISTINGS: Spec[] = [
  { office: 'OFF1', id: 'S1', day: 10, price: 500000, beds: 2, agent: ['Ann Smith', 'ann@agency.example'] },
  { office: 'OFF1', id: 'S2', day: 11, price: 900000, beds: 4, agent: ['Ann Smith', 'ANN@agency.example'], suburb: ['Bondi', 'NSW', '2026'] },
  { office: 'OFF1', id: 'R1', day: 12, rent: [600, 'week'], beds: 2, agent: ['Bob Jones', null] },
  { office: 'OFF1', id: 'R2', day: 9, rent: [2600, 'month'], beds: 1 },
  { office: 'OFF1', id: 'SOLD', day: 8, price: 700000, status: 'sold' },
  { office: 'OFF1', id: 'GONE', day: 7, price: 700000, status: 'withdrawn' },
  { office: 'OFF2', id: 'L1', kind: 'land', day: 11, price: 300000, beds: 0, suburb: ['Glenelg', 'SA', '5045'], agent: ['Cy Lee', 'cy@other.example'] },
  { office: 'OFF2', id: 'NZ1', day: 13, price: 800000, country: 'NZ', suburb: ['Ponsonby', 'Auckland', '1011'] },
];

describe('Public reads: search, single listing, agents, offices, countries (PostgreSQL)', function () {
  this.timeout(30_000);
  let svc: TestService;
  let key: string;
  before(async () => {
    svc = await startTestService({ database: 'postgres' });
    key = await activeKey(svc.db, ['OFF1', 'OFF2']);
    const res = await pushFeed(svc.url, key, feed(...LISTINGS.map(xml)));
    const body = await res.json();
    expect(body.counts, JSON.stringify(body.issues)).to.deep.equal({ parsed: 8, valid: 8, invalid: 0 });
  });
  after(() => svc.close());

  const get = async (path: string) => {
    // The directory follows a feed's answer by a few milliseconds.
    if (/^\/v1\/(agents|offices)/.test(path)) await directorySettled(svc.db);
    const res = await fetch(`${svc.url}${path}`);
    return { status: res.status, body: await res.json() };
  };
  const ids = (body: { listings: { uniqueId: string }[] }) => body.listings.map((l) => l.uniqueId);

  it('searches public listings newest first, with total, and filters', async () => {
    const all = await get('/v1/listings');
    expect(all.status).to.equal(200);
    expect(validatorFor('ListingPage')(all.body), JSON.stringify(validatorFor('ListingPage').errors)).to.equal(true);
    expect(ids(all.body)).to.deep.equal(['NZ1', 'R1', 'L1', 'S2', 'S1', 'R2']); // L1 and S2 share a time: listingKey order
    expect(all.body.total).to.equal(6);
    expect(all.body.listings[0]).to.include({ listingKey: 'OFF2/NZ1', status: 'active' });
    // Bookkeeping is not public.
    for (const listing of all.body.listings) expect(listing).to.not.have.any.keys('hidden', 'contentHash');

    expect(ids((await get('/v1/listings?country=nz')).body)).to.deep.equal(['NZ1']);
    expect(ids((await get('/v1/listings?office=OFF2')).body)).to.deep.equal(['NZ1', 'L1']);
    expect(ids((await get('/v1/listings?category=land')).body)).to.deep.equal(['L1']);
    expect(ids((await get('/v1/listings?saleMode=rent')).body)).to.deep.equal(['R1', 'R2']);
    expect(ids((await get('/v1/listings?saleMode=sale&minPrice=400000&maxPrice=850000')).body)).to.deep.equal(['NZ1', 'S1']);
    // Rent filters compare weekly rent: 2600 a month is 600 a week.
    expect(ids((await get('/v1/listings?saleMode=rent&minPrice=600')).body)).to.deep.equal(['R1', 'R2']);
    expect(ids((await get('/v1/listings?saleMode=rent&maxPrice=599')).body)).to.deep.equal([]);
    expect(ids((await get('/v1/listings?minBedrooms=3')).body)).to.deep.equal(['NZ1', 'S2']);
    const page = (await get('/v1/listings?limit=2&offset=2')).body;
    expect(ids(page)).to.deep.equal(['L1', 'S2']);
    expect([page.total, page.nextOffset]).to.deep.equal([6, 4]);
    expect((await get('/v1/listings?limit=2&offset=4')).body.nextOffset, 'the last page').to.equal(null);
    expect((await get('/v1/listings?limit=6')).body.nextOffset, 'exactly the matches').to.equal(null);
  });

  it('stops a page before the record that would pass its byte budget, never empty, and pages on by nextOffset', async () => {
    const search: ListingSearch = { saleMode: 'both', sort: NEWEST, limit: 100, offset: 0 };
    const whole = await createPublicReads(svc.db).searchListings(search);
    expect([whole.json.length, whole.nextOffset]).to.deep.equal([6, null]);
    const sizes = whole.json.map((j) => Buffer.byteLength(j));
    const fitsTwo = createPublicReads(svc.db, { pageMaxBytes: sizes[0] + sizes[1] });
    const cut = await fitsTwo.searchListings(search);
    expect([cut.json, cut.nextOffset, cut.total]).to.deep.equal([whole.json.slice(0, 2), 2, 6]);
    // One byte: one record a page (never none), and nextOffset walks every match once, in order.
    const tiny = createPublicReads(svc.db, { pageMaxBytes: 1 });
    const walked: string[] = [];
    for (let offset: number | null = 0; offset !== null; ) {
      const page = await tiny.searchListings({ ...search, offset });
      expect(page.json, `offset ${offset}`).to.have.length(1);
      walked.push(...page.json);
      offset = page.nextOffset;
    }
    expect(walked).to.deep.equal(whole.json);
    for (const list of [(q: DirectoryQuery) => tiny.listAgents(q), (q: DirectoryQuery) => tiny.listOffices(q)]) {
      const page = await list({ limit: 200, offset: 0 });
      expect([page.json.length, page.nextOffset]).to.deep.equal([1, 1]);
    }
  });

  it('answers 400 naming the parameter for malformed or out-of-range parameters', async () => {
    const cases: [string, RegExp][] = [
      ['limit=0', /limit/],
      ['limit=101', /limit/],
      ['offset=-1', /offset/],
      ['limit=abc', /limit/],
      ['country=AUS', /country/],
      ['saleMode=lease', /saleMode/],
      ['minPrice=cheap', /minPrice/],
      ['minBedrooms=-1', /minBedrooms/],
      ['sort=cheapest', /sort/],
      ['order=price', /unknown property "order"/],
      ['minPrice=10&maxPrice=5', /minPrice \(10\) is greater than query.maxPrice/],
      ['limit=1&limit=2', /more than once/],
      [`office=${'x'.repeat(201)}`, /office/],
    ];
    for (const [query, pattern] of cases) {
      const { status, body } = await get(`/v1/listings?${query}`);
      expect(status, query).to.equal(400);
      expect(body.error, query).to.match(pattern);
    }
  });

  it('returns one listing as stored: public, sold and leased; 404 for withdrawn, hidden, archived and unknown', async () => {
    const one = await get('/v1/listings/OFF1/S1');
    expect(one.status).to.equal(200);
    expect(validatorFor('PublicListing')(one.body), JSON.stringify(validatorFor('PublicListing').errors)).to.equal(true);
    expect(one.body).to.include({ listingKey: 'OFF1/S1', uniqueId: 'S1', office: 'OFF1' });
    expect(one.body).to.not.have.any.keys('hidden', 'contentHash');
    expect(one.body.price).to.deep.include({ amount: 500000, currency: 'AUD' });
    expect((await get('/v1/listings/OFF1/SOLD')).status).to.equal(200);
    for (const path of ['/v1/listings/OFF1/GONE', '/v1/listings/OFF1/NOPE', '/v1/listings/OFF9/S1']) {
      const res = await get(path);
      expect(res.status, path).to.equal(404);
      expect(Object.keys(res.body)).to.deep.equal(['error']);
    }
    await svc.db('listings').where({ listing_key: 'OFF1/S1' }).update({ hidden: true });
    expect((await get('/v1/listings/OFF1/S1')).status).to.equal(404);
    expect(ids((await get('/v1/listings?office=OFF1&saleMode=sale')).body)).to.deep.equal(['S2']);
    await svc.db('listings').where({ listing_key: 'OFF1/S1' }).update({ hidden: false });
  });

  it('lists agents and offices derived from public listings, and countries by listing count', async () => {
    const agents = await get('/v1/agents');
    expect(validatorFor('AgentPage')(agents.body), JSON.stringify(validatorFor('AgentPage').errors)).to.equal(true);
    expect(agents.body.total).to.equal(3);
    // One agent per office and email, case-insensitively; by name when there is no email.
    expect(agents.body.agents.map((a: { name: string; listingCount: number }) => [a.name, a.listingCount])).to.deep.equal([
      ['Ann Smith', 2],
      ['Bob Jones', 1],
      ['Cy Lee', 1],
    ]);
    expect(agents.body.agents[0].localities).to.deep.equal(['Bondi', 'Richmond']);
    expect((await get('/v1/agents?query=BONDI')).body.agents.map((a: { name: string }) => a.name)).to.deep.equal(['Ann Smith']);
    expect((await get('/v1/agents?office=OFF2')).body.total).to.equal(1);
    expect((await get('/v1/agents?country=nz')).body.total).to.equal(0);

    const offices = await get('/v1/offices');
    expect(validatorFor('OfficePage')(offices.body), JSON.stringify(validatorFor('OfficePage').errors)).to.equal(true);
    const off1 = offices.body.offices[0];
    expect(off1).to.include({ office: 'OFF1', listingCount: 4 });
    expect(off1.countries).to.deep.equal(['AU']);
    expect(off1.location.lat).to.be.within(-38, -33);
    expect((await get('/v1/offices?country=NZ')).body.offices.map((o: { office: string }) => o.office)).to.deep.equal(['OFF2']);
    expect((await get('/v1/offices?query=glenelg')).body.total).to.equal(1);

    const countries = await get('/v1/countries');
    expect(countries.body).to.deep.equal({
      countries: [
        { code: 'AU', listingCount: 5 },
        { code: 'NZ', listingCount: 1 },
      ],
    });

    for (const query of ['limit=201', 'country=A', `query=${'q'.repeat(121)}`, 'office=', 'offset=x']) {
      expect((await get(`/v1/agents?${query}`)).status, query).to.equal(400);
      expect((await get(`/v1/offices?${query}`)).status, query).to.equal(400);
    }
  });

  it('keeps the directory current as feeds land', async () => {
    const res = await pushFeed(svc.url, key, feed(xml({ ...LISTINGS[2], day: 20, status: 'leased' })));
    expect(res.status).to.equal(200);
    expect((await get('/v1/agents?query=bob')).body.total).to.equal(0);
    expect((await get('/v1/offices?office=OFF1')).body.offices[0].listingCount).to.equal(3);
    expect((await get('/v1/countries')).body.countries[0]).to.deep.equal({ code: 'AU', listingCount: 4 });
  });

  it('answers with an expired total while it is counted again in the background', async () => {
    const reads = createPublicReads(svc.db, { totalTtlMs: 200 });
    const search: ListingSearch = { office: 'OFF2', saleMode: 'both', sort: NEWEST, limit: 10, offset: 0 };
    const pageIds = (r: { json: string[] }) => r.json.map((j) => JSON.parse(j).uniqueId);
    expect((await reads.searchListings(search)).total).to.equal(2);
    await svc.db('listings').where({ listing_key: 'OFF2/L1' }).update({ hidden: true });
    try {
      const fresh = await reads.searchListings(search);
      expect([fresh.total, pageIds(fresh)], 'within the TTL: the cached total, the current page').to.deep.equal([2, ['NZ1']]);
      await new Promise((resolve) => setTimeout(resolve, 250));
      const expired = await reads.searchListings(search);
      expect(expired.total, 'expired: answered at once with the old count').to.equal(2);
      let total = expired.total;
      for (let i = 0; i < 100 && total !== 1; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        total = (await reads.searchListings(search)).total;
      }
      expect(total, 'the background count lands').to.equal(1);
    } finally {
      await svc.db('listings').where({ listing_key: 'OFF2/L1' }).update({ hidden: false });
    }
  });

  it('counts a filter set once whatever the order of its parameters and the page asked for', async () => {
    const reads = createPublicReads(svc.db);
    expect((await reads.searchListings({ office: 'OFF2', saleMode: 'both', sort: NEWEST, limit: 10, offset: 0 })).total).to.equal(2);
    await svc.db('listings').where({ listing_key: 'OFF2/L1' }).update({ hidden: true });
    try {
      // The same filters in another order (as ?saleMode=both&offset=1&office=OFF2 gives them), another page.
      const reordered: ListingSearch = { saleMode: 'both', sort: NEWEST, limit: 5, offset: 1, office: 'OFF2' };
      expect((await reads.searchListings(reordered)).total, 'the cached count').to.equal(2);
      const other: ListingSearch = { office: 'OFF2', saleMode: 'both', sort: NEWEST, minPrice: 1, limit: 10, offset: 0 };
      expect((await reads.searchListings(other)).total, 'another filter set is counted').to.equal(1);
    } finally {
      await svc.db('listings').where({ listing_key: 'OFF2/L1' }).update({ hidden: false });
    }
  });

  it('rewrites only the directory rows that change, and removes an agent whose listings are gone', async () => {
    /** Each directory row's version (xmin): a row written again gets a new one. */
    const versions = async () => {
      const rows = await svc.db.raw(
        `SELECT 'office:' || office AS id, xmin::text AS v FROM directory_offices UNION ALL SELECT office || '/' || agent_key, xmin::text FROM directory_agents ORDER BY 1`,
      );
      return Object.fromEntries(rows.rows.map((r: { id: string; v: string }) => [r.id, r.v]));
    };
    const before = await versions();
    await refreshDirectory(svc.db, ['OFF1', 'OFF2']);
    expect(await versions(), 'nothing changed: nothing written').to.deep.equal(before);

    // Cy's one listing leaves the public listings: his row goes, OFF2's counts change, the rest stays.
    await svc.db('listings').where({ listing_key: 'OFF2/L1' }).update({ hidden: true });
    try {
      await refreshDirectory(svc.db, ['OFF1', 'OFF2']);
      const after = await versions();
      const changed = Object.keys({ ...before, ...after }).filter((id) => before[id] !== after[id]);
      expect(changed.sort()).to.deep.equal(['OFF2/cy@other.example', 'office:OFF2']);
      expect(after).not.to.have.property('OFF2/cy@other.example');
      expect((await get('/v1/offices?office=OFF2')).body.offices[0].listingCount).to.equal(1);
    } finally {
      await svc.db('listings').where({ listing_key: 'OFF2/L1' }).update({ hidden: false });
      await refreshDirectory(svc.db, ['OFF2']);
    }
    expect((await get('/v1/agents?office=OFF2')).body.agents.map((a: { name: string }) => a.name)).to.deep.equal(['Cy Lee']);
  });

  it('lets refreshes of the same office run at once', async () => {
    const agents = async () => await svc.db('directory_agents').where({ office: 'OFF1' }).orderBy('agent_key').select('agent_key', 'listing_count');
    const expected = await agents();
    expect(expected).to.have.length.greaterThan(0);
    await svc.db('directory_agents').where({ office: 'OFF1' }).delete();
    await Promise.all(Array.from({ length: 6 }, () => refreshDirectory(svc.db, ['OFF1'])));
    expect(await agents()).to.deep.equal(expected);
  });

  it("takes an agent's contact from the latest listing, the greater listing key between listings of the same modTime", async () => {
    const listing = (id: string, name: string) => xml({ office: 'OFF2', id, day: 21, price: 400000, agent: [name, 'dee@agency.example'] });
    const res = await pushFeed(svc.url, key, feed(listing('T1', 'Dee Earlier'), listing('T2', 'Dee Later'), listing('T0', 'Dee First')));
    expect(res.status).to.equal(200);
    const agents = (await get('/v1/agents?query=dee')).body.agents;
    expect(agents.map((a: { name: string; listingCount: number }) => [a.name, a.listingCount])).to.deep.equal([['Dee Later', 3]]);
  });

  it('lists at most the first 200 localities of an agent or office, so no directory row grows without bound', async () => {
    const suburbs = Array.from({ length: DIRECTORY_LOCALITIES_SHOWN + 5 }, (_, i) => `Town ${String(i).padStart(3, '0')}`);
    const many = await activeKey(svc.db, ['OFF3']);
    const listings = suburbs.map((town, i) =>
      xml({ office: 'OFF3', id: `M${i}`, day: 22, price: 400000, agent: ['Max Many', 'max@agency.example'], suburb: [town, 'VIC', '3000'] }),
    );
    expect((await pushFeed(svc.url, many, feed(...listings))).status).to.equal(200);
    const office = (await get('/v1/offices?office=OFF3')).body.offices[0];
    expect([office.listingCount, office.localities.length, office.localities[0]]).to.deep.equal([suburbs.length, DIRECTORY_LOCALITIES_SHOWN, 'Town 000']);
    const agent = (await get('/v1/agents?office=OFF3')).body.agents[0];
    expect([agent.listingCount, agent.localities]).to.deep.equal([suburbs.length, suburbs.slice(0, DIRECTORY_LOCALITIES_SHOWN)]);
    expect((await get(`/v1/offices?query=${encodeURIComponent('town 204')}`)).body.total, 'every locality is still searched').to.equal(1);
  });
});
