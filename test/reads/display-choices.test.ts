import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { projectDoc } from '../formats/documents.js';
import { feed } from '../helpers.js';
import { AUD, activeKey, admin, directorySettled, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';

/**
 * The agent's display choices in every public read: a withheld price, rent or sold price never
 * goes public (search, one listing, the directory), a price shown as a range shows the range, a
 * withheld street leaves no street or exact point; the office's own key and operators read the
 * full stored record. Also: a status-only record read in the stored listing's own zone.
 */

const address = (display: string, suburb = 'Richmond', state = 'VIC', postcode = '3121') =>
  `<address display="${display}"><subNumber>4</subNumber><streetNumber>39</streetNumber><street>${display === 'no' ? 'Secret Street' : 'Main Road'}</street><suburb>${suburb}</suburb><state>${state}</state><postcode>${postcode}</postcode></address>`;

const listing = (id: string, inner: string, attrs = 'modTime="2024-03-01-10:00:00" status="current"', kind = 'residential') =>
  `<${kind} ${attrs}><agentID>OFF1</agentID><uniqueID>${id}</uniqueID><headline>Home ${id}</headline><description>Nice.</description>` +
  `<listingAgent id="1"><name>Ann Smith</name><email>ann@agency.example</email></listingAgent>${inner}</${kind}>`;

const FEED = feed(
  listing('HIDDEN-PRICE', `<price display="no">1234567</price>${address('yes')}`),
  listing('HIDDEN-PRICE-VIEW', `<price display="no">2345678</price><priceView>Offers over 2m</priceView>${address('yes')}`),
  listing('RANGE', `<price display="range">950000<range><min>950000</min><max>1045000</max></range></price>${address('yes')}`),
  listing('HIDDEN-RENT', `<rent period="week" display="no">6789</rent>${address('yes')}`, undefined, 'rental'),
  listing(
    'HIDDEN-STREET',
    `<price>800000</price>${address('no')}<extraFields><eField name="lat">-37.8230123</eField><eField name="lng">144.9987654</eField></extraFields>`,
  ),
  listing(
    'SOLD-HIDDEN',
    `<soldDetails><soldPrice display="no">765432</soldPrice><soldDate>2024-02-01</soldDate></soldDetails>${address('yes')}`,
    'modTime="2024-03-01-10:00:00" status="sold"',
  ),
);

describe("Display choices in public reads, and the office's own full read (PostgreSQL)", function () {
  this.timeout(30_000);
  let svc: TestService;
  let key: string;
  before(async () => {
    svc = await startTestService({ database: 'postgres' });
    key = await activeKey(svc.db, ['OFF1']);
    const res = await pushFeed(svc.url, key, FEED);
    const body = await res.json();
    expect(body.counts, JSON.stringify(body.issues)).to.deep.equal({ parsed: 6, valid: 6, invalid: 0 });
  });
  after(() => svc.close());

  const get = async (path: string, headers: Record<string, string> = {}) => {
    // The directory follows a feed's answer by a few milliseconds.
    if (/^\/v1\/(agents|offices)/.test(path)) await directorySettled(svc.db);
    const res = await fetch(`${svc.url}${path}`, { headers });
    return { status: res.status, text: await res.text() };
  };

  it('never puts a withheld amount, street or exact point in any public answer', async () => {
    const answers = [
      await get('/v1/listings?limit=100'),
      ...(await Promise.all(
        ['HIDDEN-PRICE', 'HIDDEN-PRICE-VIEW', 'RANGE', 'HIDDEN-RENT', 'HIDDEN-STREET', 'SOLD-HIDDEN'].map((id) => get(`/v1/listings/OFF1/${id}`)),
      )),
      await get('/v1/offices'),
      await get('/v1/agents'),
    ];
    for (const { status, text } of answers) {
      expect(status).to.equal(200);
      for (const amount of [1234567, 2345678, 6789, 765432]) expect(text, String(amount)).to.not.match(new RegExp(`[:\\[]${amount}[,}\\]]`));
      for (const secret of ['Secret Street', '-37.8230123', '144.9987654']) expect(text, secret).to.not.include(secret);
      expect(text).to.not.include('contentHash');
    }
  });

  it('shows the text instead: the price view, else "Contact agent"; a range as the range', async () => {
    const one = async (id: string) => JSON.parse((await get(`/v1/listings/OFF1/${id}`)).text);
    const hidden = await one('HIDDEN-PRICE');
    expect(validatorFor('PublicListing')(hidden), JSON.stringify(validatorFor('PublicListing').errors)).to.equal(true);
    expect(hidden.price).to.deep.include({ amount: null, display: false, text: 'Contact agent' });
    expect((await one('HIDDEN-PRICE-VIEW')).price).to.deep.include({ amount: null, text: 'Offers over 2m' });
    expect((await one('RANGE')).price).to.deep.include({ amount: null, displayRange: true, range: { min: 950000, max: 1045000 } });
    expect((await one('HIDDEN-RENT')).rent).to.deep.include({ amount: null, period: 'week', text: 'Contact agent' });
    expect((await one('SOLD-HIDDEN')).sold.price).to.deep.include({ amount: null, display: false, text: 'Price withheld' });
    const street = await one('HIDDEN-STREET');
    expect(street.address).to.deep.include({ street: null, streetNumber: null, subNumber: null, locality: 'Richmond', region: 'VIC', postcode: '3121' });
    expect(street.location.precision).to.equal('locality');
    expect(street.price.amount).to.equal(800000);
  });

  it('never lets a price bound or a price sort find a withheld price (bisecting the bounds would reveal it)', async () => {
    for (const bounds of ['minPrice=1200000&maxPrice=1300000', 'minPrice=1234567&maxPrice=1234567', 'maxPrice=99999999', 'minPrice=0']) {
      const page = JSON.parse((await get(`/v1/listings?${bounds}`)).text);
      expect(
        page.listings.map((l: { uniqueId: string }) => l.uniqueId),
        bounds,
      ).not.to.include('HIDDEN-PRICE');
    }
    // Sorted by price either way, it comes after every listing with a public price.
    for (const sort of ['price', '-price']) {
      const ids = JSON.parse((await get(`/v1/listings?sort=${sort}&limit=100`)).text).listings.map(
        (l: { uniqueId: string; price: { amount: number | null } | null }) => [l.uniqueId, l.price?.amount ?? null],
      );
      const hidden = ids.findIndex(([id]: [string]) => id === 'HIDDEN-PRICE');
      expect(hidden, sort).to.be.at.least(0);
      expect(
        ids.slice(hidden).every(([, amount]: [string, number | null]) => amount === null),
        `${sort}: ${JSON.stringify(ids)}`,
      ).to.equal(true);
    }
    const listing = JSON.parse((await get('/v1/listings/OFF1/HIDDEN-PRICE')).text);
    expect(listing.price.amount).to.equal(null);
    expect(listing.displayPrice).to.equal(listing.price.text ?? 'Contact agent');
  });

  it("gives the office's own key and operators the full stored record, and another office's key nothing", async () => {
    const own = await get('/v1/feeds/listings/OFF1/HIDDEN-PRICE', { authorization: `Bearer ${key}` });
    expect(own.status).to.equal(200);
    const status = JSON.parse(own.text);
    expect(validatorFor('ListingStatus')(status), JSON.stringify(validatorFor('ListingStatus').errors)).to.equal(true);
    const record = status.listing;
    expect(record.price).to.deep.include({ amount: 1234567, display: false });
    expect(record).to.include({ hidden: false });
    const street = JSON.parse((await get('/v1/feeds/listings/OFF1/HIDDEN-STREET', { authorization: `Bearer ${key}` })).text).listing;
    expect(street.address.street).to.equal('Secret Street');

    const other = await activeKey(svc.db, ['OFF2']);
    const refused = await get('/v1/feeds/listings/OFF1/HIDDEN-PRICE', { authorization: `Bearer ${other}` });
    expect(refused.status).to.equal(404);
    expect(JSON.parse(refused.text).error).to.match(/no listing OFF1\/HIDDEN-PRICE for this key/);
    expect((await get('/v1/feeds/listings/OFF1/HIDDEN-PRICE')).status).to.equal(401);

    const operator = await admin(svc.url, 'GET', '/v1/admin/listings/OFF1/SOLD-HIDDEN');
    expect(operator.status).to.equal(200);
    expect((await operator.json()).sold.price.amount).to.equal(765432);
  });

  it("leaves a project's withheld street and exact point out of every projects answer", async () => {
    const doc = projectDoc({
      uniqueId: 'QUIET',
      address: {
        display: false,
        street: 'Secret Street',
        streetNumber: '10',
        locality: 'Pyrmont',
        region: 'NSW',
        postcode: '2009',
        lat: -33.8691234,
        lng: 151.1945678,
      },
    });
    const res = await fetch(`${svc.url}/v1/feeds`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ xml: JSON.stringify(doc), format: 'project', context: AUD }),
    });
    expect(res.status, await res.clone().text()).to.equal(200);
    const answers = [await get('/v1/projects'), await get('/v1/projects/OFF1/QUIET'), await get('/v1/listings?limit=100')];
    for (const { status, text } of answers) {
      expect(status).to.equal(200);
      for (const secret of ['Secret Street', '-33.8691234', '151.1945678']) expect(text, secret).to.not.include(secret);
    }
    const project = JSON.parse(answers[1].text);
    expect(validatorFor('ProjectWithListings')(project), JSON.stringify(validatorFor('ProjectWithListings').errors)).to.equal(true);
    expect(project.address).to.deep.include({ street: null, streetNumber: null, locality: 'Pyrmont', postcode: '2009' });
    expect(project.location.precision).to.equal('locality');
    expect(project).to.not.have.property('contentHash');
    // The stored project keeps the street.
    const [row] = await svc.db('projects').where({ unique_id: 'QUIET' }).select('data');
    expect(row.data.address.street).to.equal('Secret Street');
  });

  it('never shows the street directory reference publicly, while the stored record keeps it', async () => {
    const withRef = listing(
      'MELWAY',
      `<price>500000</price>${address('yes')}<streetDirectory type="melways"><page>44</page><coordinates>K7</coordinates></streetDirectory>`,
    );
    expect((await pushFeed(svc.url, key, feed(withRef))).status).to.equal(200);
    const pub = await get('/v1/listings/OFF1/MELWAY');
    expect(pub.status).to.equal(200);
    expect(JSON.parse(pub.text)).to.not.have.property('streetDirectory');
    const own = JSON.parse((await get('/v1/feeds/listings/OFF1/MELWAY', { authorization: `Bearer ${key}` })).text).listing;
    expect(own.streetDirectory).to.not.equal(undefined);
  });

  it('reads a status-only record in the zone of the stored listing it updates (Perth, Adelaide)', async () => {
    const perth = listing('PERTH', `<price>600000</price>${address('yes', 'Subiaco', 'WA', '6008')}`, 'modTime="2024-05-01-14:05:00" status="current"');
    const adelaide = listing('ADL', `<price>600000</price>${address('yes', 'Glenelg', 'SA', '5045')}`, 'modTime="2024-05-01-14:05:00" status="current"');
    expect((await pushFeed(svc.url, key, feed(perth, adelaide))).status).to.equal(200);
    // Real CRMs send a withdrawal without an address: 16:00 in Perth is after 14:05 in Perth
    // (read in Sydney's zone it would be 14:00 Perth time, before it: stale).
    const withdraw = (id: string, time: string) =>
      `<residential modTime="2024-05-01-${time}" status="withdrawn"><agentID>OFF1</agentID><uniqueID>${id}</uniqueID></residential>`;
    const res = await pushFeed(svc.url, key, feed(withdraw('PERTH', '16:00:00'), withdraw('ADL', '14:25:00')));
    const body = await res.json();
    expect(body.counts, JSON.stringify(body.issues)).to.include({ parsed: 2, valid: 2 });
    expect(body.summary, JSON.stringify(body)).to.include({ updated: 2, stale_ignored: 0 });
    expect((await get('/v1/listings/OFF1/PERTH')).status).to.equal(404);
    expect((await get('/v1/listings/OFF1/ADL')).status).to.equal(404);
    const stored = JSON.parse((await get('/v1/feeds/listings/OFF1/PERTH', { authorization: `Bearer ${key}` })).text);
    expect(stored.listing).to.include({ status: 'withdrawn', modTime: '2024-05-01T08:00:00Z' });
    expect(stored.public).to.include({ readable: false, inSearch: false, reason: 'withdrawn' });
    expect(stored.lastFeed).to.include({ action: 'updated', mode: 'incremental' });
    const page = JSON.parse((await get('/v1/listings?limit=100')).text);
    expect(page.listings.map((l: { uniqueId: string }) => l.uniqueId)).to.not.include.members(['PERTH', 'ADL']);
  });
});
