import { expect } from 'chai';
import { parseAlertSearch } from '../../api/alert-search.js';
import { parseListingSearch } from '../../api/listing-search-query.js';
import { type AlertChange, matchChanges } from '../../db/alert-matching.js';
import type { Db } from '../../db/knex.js';
import { keywordQuery, searchFilters } from '../../db/listing-search/filters.js';
import { scratchDatabase } from '../helpers.js';

/** A listing row as a feed would leave it, with only the fields the matcher reads. */
interface Home {
  id: string;
  category?: string | null;
  saleMode?: 'sale' | 'rent' | null;
  price?: number;
  withheld?: boolean;
  beds?: number;
  locality?: string;
  postcode?: string;
  region?: string;
  lat?: number;
  lng?: number;
  headline?: string;
  status?: string;
  hidden?: boolean;
}

async function insertHome(db: Db, h: Home): Promise<string> {
  const key = `ALM1/${h.id}`;
  const saleMode = h.saleMode === undefined ? 'sale' : h.saleMode;
  const price = h.price === undefined ? null : { amount: h.price, currency: 'AUD', display: !h.withheld };
  await db('listings').insert({
    listing_key: key,
    office: 'ALM1',
    unique_id: h.id,
    format: 'reaxml',
    status: h.status ?? 'active',
    mod_time: new Date('2026-11-01T00:00:00Z'),
    content_hash: h.id,
    hidden: h.hidden ?? false,
    data: JSON.stringify({
      listingKey: key,
      office: 'ALM1',
      uniqueId: h.id,
      ...(h.category === null ? {} : { category: h.category ?? 'residential' }),
      ...(saleMode === null ? {} : { saleMode }),
      status: h.status ?? 'active',
      price: saleMode === 'rent' ? null : price,
      rent: saleMode === 'rent' ? { ...price, period: 'week' } : null,
      bedrooms: h.beds ?? 3,
      address: { country: 'AU', region: h.region ?? 'VIC', locality: h.locality ?? 'Fitzroy', postcode: h.postcode ?? '3065', display: true },
      location: { lat: h.lat ?? -37.8, lng: h.lng ?? 144.98, precision: 'street' },
      headline: { 'en-AU': h.headline ?? 'A home' },
    }),
    public_patch: h.withheld ? JSON.stringify({ price: { ...price, amount: null, text: 'Contact agent' } }) : null,
  });
  return key;
}

/**
 * Matching a batch of changes (one statement joining the batch's place keys, sale modes and
 * categories to the saved searches filed under them) records exactly what the search itself finds
 * through GET /v1/listings' filters, for every kind of place and filter, including the cases the
 * join's keys treat specially: a search for either sale mode or several categories, a listing
 * without a category or sale mode, a withheld price.
 */
describe('Alert matching: a batch records what each saved search finds, edge by edge', function () {
  this.timeout(60_000);
  let db: Db;
  let drop: () => Promise<void>;
  before(async () => {
    ({ db, drop } = await scratchDatabase('alert_matching'));
  });
  after(async () => drop?.());

  it('matches each changed listing to exactly the searches whose filters it passes', async () => {
    const homes: Home[] = [
      { id: 'h1', price: 850_000, beds: 3, headline: 'Renovated home with pool' },
      { id: 'h2', price: 1_200_000, beds: 4 },
      { id: 'h3', price: 850_000, withheld: true },
      { id: 'r1', category: 'rental', saleMode: 'rent', price: 650, beds: 2 },
      { id: 'l1', category: 'land', price: 400_000, beds: 0 },
      { id: 'n1', category: null, saleMode: null, price: 500_000 },
      { id: 'c1', locality: 'Collingwood', postcode: '3066', lat: -37.803, lng: 144.99, price: 900_000 },
      { id: 's1', locality: 'Manly', postcode: '2095', region: 'NSW', lat: -33.8, lng: 151.28, price: 2_000_000, beds: 5 },
      { id: 'x1', status: 'withdrawn', price: 800_000 },
      { id: 'x2', hidden: true, price: 800_000 },
    ];
    const keys: string[] = [];
    for (const h of homes) keys.push(await insertHome(db, h));
    const searches: Record<string, unknown>[] = [
      { locality: 'Fitzroy' },
      { locality: 'Fitzroy', saleMode: 'sale', maxPrice: 900_000 },
      { locality: ['Fitzroy', 'Collingwood'], category: ['residential', 'land'] },
      { locality: 'Fitzroy', category: 'land' },
      { locality: 'Fitzroy', saleMode: 'rent', maxPrice: 700 },
      { locality: 'Fitzroy', minPrice: 100_000 },
      { postcode: '3066' },
      { bbox: '144.97,-37.81,145.0,-37.79', minBedrooms: 3 },
      { near: '-37.8,144.98', radiusKm: 1 },
      { region: 'NSW', category: 'residential', minBedrooms: 4 },
      { region: ['VIC', 'NSW'], saleMode: 'sale', minPrice: 800_000, maxPrice: 1_300_000 },
      { country: 'AU', q: 'pool' },
      { country: 'AU' },
      { office: 'ALM1', saleMode: 'sale' },
    ];
    const ids: { id: string; search: Record<string, string> }[] = [];
    for (const [i, body] of searches.entries()) {
      const { params, columns } = await parseAlertSearch(db, body);
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      await db('alert_subscriptions').insert({
        id,
        email: `b${i}@home.example`,
        email_key: `b${i}@home.example`,
        token: `lal_test_${i}`,
        status: 'confirmed',
        confirmed_at: db.raw("now() - interval '1 minute'"),
        frequency: 'instant',
        search: JSON.stringify(params),
        ...columns,
      });
      ids.push({ id, search: params });
    }
    // A pending subscription matches nothing.
    const { columns } = await parseAlertSearch(db, { locality: 'Fitzroy' });
    await db('alert_subscriptions').insert({
      id: '00000000-0000-4000-8000-999999999999',
      email: 'p@home.example',
      email_key: 'p@home.example',
      token: 'lal_test_pending',
      frequency: 'instant',
      search: '{}',
      ...columns,
    });

    const changes: AlertChange[] = keys.map((listingKey, i) => ({ seq: i + 1, listingKey, reason: 'new', at: new Date() }));
    const recorded = await db.transaction((trx) => matchChanges(trx, changes));

    let expectedTotal = 0;
    for (const { id, search } of ids) {
      const parsed = parseListingSearch(search).search;
      if (parsed.q) parsed.tsquery = await keywordQuery(db, parsed.q);
      const expected: string[] = (await searchFilters(db, parsed).whereIn('listing_key', keys).pluck('listing_key')).sort();
      const matched: string[] = (await db('alert_matches').where({ subscription_id: id }).pluck('listing_key')).sort();
      expect(matched, JSON.stringify(search)).to.deep.equal(expected);
      expectedTotal += expected.length;
    }
    expect(recorded).to.equal(expectedTotal);
    // The cases this is about did occur: a search for either sale mode, one of two categories,
    // a listing without category and sale mode, a withheld price kept from price searches.
    const of = async (i: number) => (await db('alert_matches').where({ subscription_id: ids[i].id }).pluck('listing_key')).sort();
    expect(await of(0)).to.include.members(['ALM1/h1', 'ALM1/r1', 'ALM1/n1', 'ALM1/h3']);
    expect(await of(2))
      .to.include.members(['ALM1/l1', 'ALM1/c1', 'ALM1/h1'])
      .and.not.include('ALM1/n1');
    expect(await of(5)).to.not.include('ALM1/h3');
    expect(await db('alert_matches').where({ subscription_id: '00000000-0000-4000-8000-999999999999' })).to.have.length(0);

    // The same changes again record nothing; the statement runs outside a transaction too.
    expect(await matchChanges(db, changes)).to.equal(0);
  });
});
