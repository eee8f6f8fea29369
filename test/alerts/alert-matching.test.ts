import { expect } from 'chai';
import { parseListingSearch } from '../../api/listing-search-query.js';
import { matchChanges, savedSearchColumns } from '../../db/alert-matching.js';
import { keywordQuery, searchFilters } from '../../db/listing-search/filters.js';
import { eventually, feed } from '../helpers.js';
import { activeKey, pushFeed } from '../ingest/client.js';
import { random } from '../pipeline/varied-listings.js';
import { startTestService, type TestService } from '../service.js';

/**
 * The matcher answers what GET /v1/listings answers: for many searches drawn at random from the
 * parameters an alert takes, the listings a saved search matches are exactly those the search's
 * own filters (db/listing-search/filters.ts, searchFilters) find among the same listings.
 */

const PLACES = [
  ['Fitzroy', '3065'],
  ['Carlton', '3053'],
  ['Richmond', '3121'],
  ['Brunswick', '3056'],
  ['Geelong', '3220'],
] as const;
const WORDS = ['sunny terrace', 'quiet garden', 'city views', 'renovated kitchen'];

function listings(rnd: () => number): string[] {
  const out: string[] = [];
  for (let i = 0; i < 80; i += 1) {
    const [suburb, postcode] = PLACES[Math.floor(rnd() * PLACES.length)];
    const rent = rnd() < 0.25;
    const kind = rent ? 'rental' : rnd() < 0.15 ? 'land' : 'residential';
    const shown = rnd() < 0.8 ? 'yes' : 'no';
    const amount = rent ? 300 + Math.floor(rnd() * 700) : 400_000 + Math.floor(rnd() * 1_200_000);
    const price = rent ? `<rent period="week" display="${shown}">${amount}</rent>` : `<price display="${shown}">${amount}</price>`;
    const beds = Math.floor(rnd() * 6);
    const words = WORDS[Math.floor(rnd() * WORDS.length)];
    const status = rnd() < 0.1 ? 'sold' : rnd() < 0.1 ? 'withdrawn' : 'current';
    out.push(
      `<${kind} modTime="2024-03-01-10:00:00" status="${status}"><agentID>${rnd() < 0.5 ? 'MT1' : 'MT2'}</agentID><uniqueID>U${i}</uniqueID>` +
        `<headline>Home with ${words}</headline><description>Plain.</description>${price}` +
        `${kind === 'land' ? '' : `<category name="${rnd() < 0.5 ? 'House' : 'Unit'}"/><features><bedrooms>${beds}</bedrooms><bathrooms>${1 + (i % 3)}</bathrooms><garages>${i % 3}</garages></features>`}` +
        `<landDetails><area unit="squareMeter">${200 + Math.floor(rnd() * 800)}</area></landDetails>` +
        `<address display="${rnd() < 0.85 ? 'yes' : 'no'}"><streetNumber>${i + 1}</streetNumber><street>Main Road</street><suburb>${suburb}</suburb><state>VIC</state><postcode>${postcode}</postcode></address></${kind}>`,
    );
  }
  return out;
}

/** A search of random parameters, as a query string would give them; always a place, as an alert needs. */
function search(rnd: () => number): Record<string, string> {
  const s: Record<string, string> = {};
  const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)];
  const place = rnd();
  if (place < 0.3) s.locality = [pick(PLACES)[0], ...(rnd() < 0.3 ? [pick(PLACES)[0]] : [])].join(',');
  else if (place < 0.45) s.postcode = pick(PLACES)[1];
  else if (place < 0.6) s.region = rnd() < 0.8 ? 'vic' : 'nsw';
  else if (place < 0.75)
    s.bbox =
      rnd() < 0.5 ? '144.9,-37.9,145.1,-37.7' : pick(['144.0,-38.5,144.5,-38.0', '170,-40,-170,-30', '144.97,-37.81,144.99,-37.79', '144.9,-38.3,-179,-37.7']);
  else if (place < 0.9) {
    s.near = pick(['-37.8,144.98', '-38.15,144.36', '-37.77,144.96']);
    s.radiusKm = pick(['1', '3', '10', '60']);
  } else if (rnd() < 0.5) s.office = pick(['MT1', 'MT2']);
  else s.country = 'AU';
  if (rnd() < 0.3) s.saleMode = pick(['sale', 'rent', 'both']);
  if (rnd() < 0.3) s.category = pick(['residential', 'rental', 'land', 'residential,land']);
  if (rnd() < 0.2) s.subCategory = pick(['house', 'unit', 'House,Unit']);
  if (rnd() < 0.35) s.minPrice = pick(['400', '500000', '900000']);
  if (rnd() < 0.35) s.maxPrice = pick(['800', '700000', '1200000']);
  if (s.minPrice && s.maxPrice && Number(s.minPrice) > Number(s.maxPrice)) delete s.maxPrice;
  if (rnd() < 0.3) s.minBedrooms = String(Math.floor(rnd() * 4));
  if (rnd() < 0.15) s.maxBedrooms = String(3 + Math.floor(rnd() * 3));
  if (rnd() < 0.15) s.minBathrooms = String(1 + Math.floor(rnd() * 2));
  if (rnd() < 0.15) s.minCarSpaces = String(Math.floor(rnd() * 3));
  if (rnd() < 0.15) s.minLandArea = pick(['300', '600']);
  if (rnd() < 0.1) s.maxLandArea = pick(['700', '900']);
  if (rnd() < 0.2) s.q = pick(['sunny', 'garden', 'views -city', '"renovated kitchen"', 'terrace or garden']);
  return s;
}

describe('Alert matching answers what the search answers', function () {
  this.timeout(120_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService({ database: 'pglite' });
    const key = await activeKey(svc.db, ['MT1', 'MT2']);
    const res = await pushFeed(svc.url, key, feed(...listings(random(7))));
    const { feedId } = (await res.json()) as { feedId: string };
    await eventually('the feed done', async () => (await svc.db('feed_events').where({ id: feedId }).first('status'))?.status === 'done');
  });
  after(async () => {
    await svc?.close();
  });

  it('matches exactly the listings searchFilters finds, for 300 random saved searches', async () => {
    const rnd = random(11);
    const keys: string[] = (await svc.db('listings').select('listing_key').orderBy('listing_key')).map((r: { listing_key: string }) => r.listing_key);
    expect(keys.length).to.equal(80);
    const expected = new Map<string, string[]>();
    const rows = [];
    for (let i = 0; i < 300; i += 1) {
      const params = search(rnd);
      const { search: parsed } = parseListingSearch(params);
      if (parsed.q) parsed.tsquery = await keywordQuery(svc.db, parsed.q);
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      const found = await searchFilters(svc.db, parsed).select('listing_key').orderBy('listing_key');
      expected.set(
        id,
        found.map((r: { listing_key: string }) => r.listing_key),
      );
      rows.push({
        id,
        email: `m${i}@x.example`,
        email_key: `m${i}@x.example`,
        token: `lal_test_${i}`,
        status: 'confirmed',
        confirmed_at: svc.db.raw("now() - interval '1 minute'"),
        frequency: 'instant',
        search: JSON.stringify(params),
        ...savedSearchColumns(parsed),
      });
    }
    await svc.db('alert_subscriptions').insert(rows);
    await matchChanges(
      svc.db,
      keys.map((listingKey, n) => ({ seq: n + 1, listingKey, reason: 'new' as const, at: new Date() })),
    );
    const matched = new Map<string, string[]>();
    for (const r of await svc.db('alert_matches').select('subscription_id', 'listing_key').orderBy('listing_key')) {
      matched.set(r.subscription_id, [...(matched.get(r.subscription_id) ?? []), r.listing_key]);
    }
    let nonEmpty = 0;
    for (const [id, want] of expected) {
      if (want.length) nonEmpty += 1;
      const row = rows.find((r) => r.id === id)!;
      expect(matched.get(id) ?? [], `search ${row.search}`).to.deep.equal(want);
    }
    // The draw is worth something: most searches match some listings, and not all of them.
    expect(nonEmpty).to.be.greaterThan(150);
  });
});
