import { expect } from 'chai';
import { PUBLIC_OMITTED, publicPatch } from '../../pipeline/public-view.js';
import type { FeedContext } from '../../pipeline/types.js';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { ADDRESS, AU_CONTEXT, feed, listingXml } from '../helpers.js';

/** Real-feed fidelity: what an agent sends is what the canonical record keeps (one test per defect found in real feeds). */
async function mapOne(xml: string, context: FeedContext = AU_CONTEXT) {
  const result = await validateFeed(feed(xml), context);
  const codes = result.issues.map((i) => i.code).filter((c) => c !== 'missing_headline' && c !== 'missing_description');
  return { listing: result.listings[0] as any, codes, issues: result.issues, result };
}
const HEAD = '<headline>H</headline><description>D</description>';

describe('REAXML fidelity: real feeds kept as the agent sent them', () => {
  it('says which zone a record without an address was read in (the dry run)', async () => {
    const { issues } = await mapOne(
      '<residential modTime="2024-05-01-16:00:00" status="withdrawn"><agentID>OFF1</agentID><uniqueID>P1</uniqueID></residential>',
    );
    expect(issues.find((i) => i.code === 'local_time_zone')?.message).to.match(/read in Australia\/Sydney.*stored listing.*own zone/);
    // A modTime with its own offset needs no zone.
    const offset = await mapOne(
      '<residential modTime="2024-05-01T16:00:00+08:00" status="withdrawn"><agentID>OFF1</agentID><uniqueID>P1</uniqueID></residential>',
    );
    expect(offset.codes).to.not.include('local_time_zone');
    expect(offset.listing.modTime).to.equal('2024-05-01T08:00:00Z');
  });

  it('reads commercialListingType and commercialRent for commercialLand and business, rent per m² with its range', async () => {
    const lease = await mapOne(
      listingXml(
        `${ADDRESS}${HEAD}<commercialListingType value="lease"/><commercialRent period="annual" plusOutgoings="yes" tax="exclusive">120000</commercialRent>`,
        undefined,
        'commercialLand',
      ),
    );
    expect(lease.listing.saleMode).to.equal('rent');
    expect(lease.listing.rent).to.deep.include({ amount: 120000, period: 'year', plusOutgoings: true, tax: 'exclusive' });
    const perSqm = await mapOne(
      listingXml(
        `${ADDRESS}${HEAD}<commercialListingType value="lease"/><commercialRent period="annual"><rentPerSquareMetre><range><min>370</min><max>415</max></range></rentPerSquareMetre></commercialRent>`,
        undefined,
        'commercial',
      ),
    );
    expect(perSqm.listing.rent).to.deep.include({ amount: null, period: 'year', perSqm: { min: 370, max: 415 } });
    const business = await mapOne(listingXml(`${ADDRESS}${HEAD}<price>250000</price>`, undefined, 'business'));
    expect(business.listing.saleMode).to.equal('sale');
  });

  it('reads an auction date given as the element text, with a warning', async () => {
    const { listing, codes } = await mapOne(listingXml(`${ADDRESS}${HEAD}<auction>2024-06-01T10:00</auction>`));
    expect(listing.auction).to.deep.equal({ date: '2024-06-01T00:00:00Z' });
    expect(codes).to.include('nonstandard_auction');
  });

  it('keeps every commercialCategory, the first as subCategory', async () => {
    const { listing } = await mapOne(
      listingXml(
        `${ADDRESS}${HEAD}<commercialCategory name="Retail"/><commercialCategory name="Offices"/><commercialCategory name="Showrooms/Bulky Goods"/>`,
        undefined,
        'commercial',
      ),
    );
    expect(listing.subCategory).to.equal('Retail');
    expect(listing.commercial.categories).to.deep.equal(['Retail', 'Offices', 'Showrooms/Bulky Goods']);
  });

  it('keeps counts as counts: <toilet>2</toilet> is 2 toilets', async () => {
    const { listing, codes } = await mapOne(listingXml(`${ADDRESS}${HEAD}<features><toilet>2</toilet><toilets>0</toilets><pool>1</pool></features>`));
    expect(listing.features).to.deep.include({ toilets: 0, pool: true });
    const only = await mapOne(listingXml(`${ADDRESS}${HEAD}<features><toilet>2</toilet></features>`));
    expect(only.listing.features.toilets).to.equal(2);
    expect(codes).to.include('nonstandard_feature');
  });

  it('accepts agentId and other spellings of the identity elements, with a warning', async () => {
    const { listing, codes, result } = await mapOne(
      `<residential modTime="2024-03-01-10:00:00" status="current"><agentId>OFF1</agentId><uniqueId>L1</uniqueId>${ADDRESS}${HEAD}</residential>`,
    );
    expect(result.counts.valid).to.equal(1);
    expect(listing).to.include({ office: 'OFF1', uniqueId: 'L1' });
    expect(codes.filter((c) => c === 'identity_spelling')).to.have.length(2);
  });

  it('treats price display="range" as showing the range, not the price', async () => {
    const { listing } = await mapOne(
      listingXml(`${ADDRESS}${HEAD}<price display="range" tax="inclusive"><range><min>900000</min><max>990000</max></range></price>`),
    );
    expect(listing.price).to.deep.include({ amount: 900000, display: true, displayRange: true, range: { min: 900000, max: 990000 }, tax: 'inclusive' });
    expect(publicPatch(listing)?.price).to.deep.include({ amount: null, range: { min: 900000, max: 990000 } });
    // A bad bound is reported once, where the range is read.
    const bad = await mapOne(listingXml(`${ADDRESS}${HEAD}<price display="range"><range><min>lots</min><max>990000</max></range></price>`));
    expect(bad.issues.filter((i) => i.code === 'invalid_price').map((i) => i.message)).to.deep.equal(['price min "lots" is not an amount; no amount kept']);
    expect(bad.listing.price).to.deep.include({ amount: null, range: { min: null, max: 990000 } });
  });

  it('stores headline and description as plain text, with a sanitized HTML description', async () => {
    const description =
      '&lt;p&gt;Sunny &amp;amp; bright&lt;/p&gt;&lt;p&gt;Two &lt;span style="color:red" onclick="x()"&gt;living&lt;/span&gt;&lt;br&gt;areas&lt;script&gt;alert(1)&lt;/script&gt; &lt;a href="javascript:alert(1)"&gt;tour&lt;/a&gt; &lt;a href="https://tour.example/1"&gt;real tour&lt;/a&gt;&lt;/p&gt;';
    const { listing } = await mapOne(
      listingXml(`${ADDRESS}<headline>&lt;b&gt;Fish &amp;amp;amp; Chips&lt;/b&gt;</headline><description>${description}</description>`),
    );
    expect(listing.headline['en-AU']).to.equal('Fish & Chips');
    expect(listing.description['en-AU']).to.equal('Sunny & bright\n\nTwo living\nareas tour real tour');
    const html = listing.descriptionHtml['en-AU'] as string;
    expect(html).to.include('<p>Sunny &amp; bright</p>').and.include('<a href="https://tour.example/1"');
    for (const bad of ['script', 'style=', 'onclick', 'javascript:', 'alert']) expect(html).to.not.include(bad);
  });

  it('splits composite street numbers where unambiguous, keeping the text', async () => {
    const split = async (number: string) =>
      (await mapOne(listingXml(ADDRESS.replace('<streetNumber>39</streetNumber>', `<streetNumber>${number}</streetNumber>`), undefined, 'land'))).listing
        .address;
    expect(await split('23/541')).to.deep.include({ subNumber: '23', streetNumber: '541', streetNumberText: '23/541' });
    expect(await split('Unit D, 21')).to.deep.include({ subNumber: 'D', streetNumber: '21', streetNumberText: 'Unit D, 21' });
    expect(await split('Lot 5 / 12')).to.deep.include({ lotNumber: '5', streetNumber: '12', subNumber: null });
    expect(await split('7 &amp; 9'))
      .to.deep.include({ streetNumber: '7 & 9', subNumber: null })
      .and.not.have.property('streetNumberText');
  });

  it('warns when suburb and postcode disagree, placing it by the suburb at lower precision', async () => {
    const { listing, codes } = await mapOne(listingXml(`${ADDRESS.replace('Richmond', 'BALLARAT')}${HEAD}`));
    expect(codes).to.include('address_mismatch');
    expect(listing.location).to.include({ precision: 'postcode' });
    expect(listing.location!.lat).to.be.closeTo(-37.56, 0.1); // Ballarat, not Richmond (-37.82)
  });

  it('keeps file= images in order with their file name, and reads a bare <img>', async () => {
    const { listing, codes } = await mapOne(
      listingXml(
        `${ADDRESS}${HEAD}<objects><img id="m" file="front.jpg"/><img id="a" url="https://img.example/a.jpg"/><img id="b" file="back.jpg"/></objects>`,
      ),
    );
    expect(listing.media.map((m: { file?: string; url?: string }) => m.file ?? m.url)).to.deep.equal(['front.jpg', 'https://img.example/a.jpg', 'back.jpg']);
    expect(codes.filter((c) => c === 'media_not_url')).to.have.length(2);
    const bare = await mapOne(listingXml(`${ADDRESS}${HEAD}<img id="m" url="https://img.example/m.jpg"/>`));
    expect(bare.listing.media.map((m: { url?: string }) => m.url)).to.deep.equal(['https://img.example/m.jpg']);
    expect(bare.codes).to.include('media_outside_objects');
  });

  it('keeps media and link URLs as the URL parser serialises them: a quote arrives percent-encoded', async () => {
    const { listing } = await mapOne(
      listingXml(
        `${ADDRESS}${HEAD}<images><img id="m" url='https://cdn.example/a"b c.jpg'/></images><externalLink href='https://agency.example/x"onmouseover="alert(1)'/>`,
      ),
    );
    expect(listing.media[0].url).to.equal('https://cdn.example/a%22b%20c.jpg');
    expect(listing.links).to.deep.equal([{ kind: 'externalLink', url: 'https://agency.example/x%22onmouseover=%22alert(1)' }]);
  });

  it('asks a record without an address (an update) for no headline or description', async () => {
    const { issues } = await validateFeed(
      feed('<residential modTime="2024-05-01-16:00:00" status="current"><agentID>OFF1</agentID><uniqueID>P1</uniqueID><price>500000</price></residential>'),
      AU_CONTEXT,
    );
    expect(issues.map((i) => i.code)).to.not.include.members(['missing_headline', 'missing_description']);
  });

  it('keeps the fields real feeds carry beyond the core model', async () => {
    const { listing, codes } = await mapOne(
      listingXml(
        `${ADDRESS.replace('<streetNumber>', '<site>Harbour Tower</site><streetNumber>')}${HEAD}<authority value="setSale"/><exclusivity value="exclusive"/><isMultiple value="yes"/>` +
          '<outgoings period="annual" tax="exclusive">15000</outgoings><return>6.5</return><currentLeaseEndDate>2026-06-30</currentLeaseEndDate><zone>C1Z</zone><tenancy>tenanted</tenancy>' +
          '<carSpaces>12</carSpaces><parkingComments>Basement</parkingComments><furtherOptions>3+3</furtherOptions><highlight id="2">Corner site</highlight><highlight id="1">Main road</highlight>' +
          '<municipality>Yarra</municipality><streetDirectory type="melways"><page>2G</page><reference>B7</reference></streetDirectory><estate><name>Riverside</name><stage>2</stage></estate>' +
          '<landDetails><frontage unit="meter">20</frontage><depth unit="meter" side="rear">40</depth><crossOver value="left"/></landDetails><buildingDetails><energyRating>5.5</energyRating></buildingDetails>' +
          '<newConstruction>1</newConstruction><isHomeLandPackage value="no"/><ecoFriendly><solarPanels>yes</solarPanels><waterTank>no</waterTank></ecoFriendly>' +
          '<listingAgent id="1"><name>Ann</name><email>ann@agency.example</email><twitterURL>https://twitter.example/ann</twitterURL><linkedInURL>javascript:alert(1)</linkedInURL></listingAgent>' +
          '<miniweb><uri id="1">https://mini.example/1</uri></miniweb><videoLink href="https://video.example/v"/>',
        undefined,
        'commercial',
      ),
    );
    expect(listing).to.deep.include({
      authority: 'setSale',
      exclusivity: 'exclusive',
      isMultiple: true,
      municipality: 'Yarra',
      streetDirectory: { type: 'melways', page: '2G', reference: 'B7' },
      estate: { name: 'Riverside', stage: '2' },
      land: { frontageM: 20, depths: [{ side: 'rear', m: 40 }], crossOver: 'left' },
      energyRating: 5.5,
      newConstruction: true,
      isHomeLandPackage: false,
      ecoFriendly: ['solarPanels'],
    });
    expect(listing.commercial).to.deep.equal({
      outgoings: { amount: 15000, currency: 'AUD', period: 'year', tax: 'exclusive' },
      return: 6.5,
      currentLeaseEndDate: '2026-06-30',
      zone: 'C1Z',
      tenancy: 'tenanted',
      carSpaces: 12,
      parkingComments: 'Basement',
      furtherOptions: '3+3',
      highlights: ['Main road', 'Corner site'],
    });
    expect(listing.address!.site).to.equal('Harbour Tower');
    expect(listing.agents[0].social).to.deep.equal({ twitter: 'https://twitter.example/ann' });
    expect(codes).to.include('invalid_link_url');
    expect(listing.links).to.deep.equal([
      { kind: 'videoLink', url: 'https://video.example/v' },
      { kind: 'miniweb', url: 'https://mini.example/1' },
    ]);
    expect(PUBLIC_OMITTED).to.include('streetDirectory');

    const rental = await mapOne(
      listingXml(
        `${ADDRESS}${HEAD}<rent period="week">650</rent><allowances><petFriendly>yes</petFriendly><furnished>no</furnished><smokers>no</smokers></allowances>` +
          '<idealFor><couples>yes</couples><students>no</students></idealFor><views><water>yes</water></views><depositTaken value="yes"/><availabilityLink href="https://book.example/1"/>',
        undefined,
        'holidayRental',
      ),
    );
    expect(rental.listing).to.deep.include({
      allowances: { pets: true, furnished: false, smokers: false },
      idealFor: ['couples'],
      views: ['water'],
      depositTaken: true,
    });
    expect(rental.listing.links).to.deep.equal([{ kind: 'availabilityLink', url: 'https://book.example/1' }]);

    const business = await mapOne(
      listingXml(
        `${ADDRESS}${HEAD}<price>300000</price><businessCategory id="1"><name>Food/Hospitality</name><businessSubCategory><name>Cafe</name></businessSubCategory></businessCategory>` +
          '<takings>$12,000 per week</takings><businessLease period="annual">52000</businessLease><franchise value="yes"/><terms>Vendor finance</terms>',
        undefined,
        'business',
      ),
    );
    expect(business.listing.business).to.deep.equal({
      categories: [{ name: 'Food/Hospitality', subCategory: 'Cafe' }],
      takings: '$12,000 per week',
      lease: { amount: 52000, currency: 'AUD', period: 'year' },
      franchise: true,
      terms: 'Vendor finance',
    });

    const rural = await mapOne(
      listingXml(
        `${ADDRESS}${HEAD}<ruralFeatures><fencing>Boundary</fencing><annualRainfall>600mm</annualRainfall><irrigation>Bore</irrigation></ruralFeatures>`,
        undefined,
        'rural',
      ),
    );
    expect(rural.listing.rural).to.deep.equal({ fencing: 'Boundary', annualRainfall: '600mm', irrigation: 'Bore' });
  });
});
