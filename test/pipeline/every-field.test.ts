import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { addressSchema, extraProperties, listingAgentSchema, mediaItemSchema, priceSchema, rentSchema } from '../../pipeline/listing-schema.js';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { AU_CONTEXT, repoRoot } from '../helpers.js';
import { paths, RESO_ONLY, type Schema, valuesAt } from './schema-paths.js';

/**
 * test/fixtures/reaxml/fidelity/every-field.xml carries every field the canonical model keeps beyond
 * its core, in the shapes real CRM exports send them. Every optional property the listing schema
 * names for those fields (and for prices, rents, addresses, media and agents) must come out of it:
 * a field added to the schema without a fixture, or a mapping change that drops one, fails here.
 */

describe('REAXML fixture carrying every kept field (fidelity/every-field.xml)', () => {
  const text = readFileSync(resolve(repoRoot, 'test/fixtures/reaxml/fidelity/every-field.xml'), 'utf8');
  let listings: Record<string, any>[];
  let codes: string[];
  before(async () => {
    const result = await validateFeed(text, AU_CONTEXT);
    expect(result.counts, JSON.stringify(result.issues)).to.deep.equal({ parsed: 6, valid: 6, invalid: 0 });
    listings = result.listings as Record<string, any>[];
    codes = result.issues.map((i) => i.code);
  });

  it('gives every listing as the schema states it', () => {
    for (const listing of listings) expect(validatorFor('Listing')(listing), JSON.stringify(validatorFor('Listing').errors)).to.equal(true);
  });

  it('keeps every extra field and every optional part of prices, rents, addresses, media and agents', () => {
    const wanted = [
      ...paths({ properties: extraProperties as unknown as Record<string, Schema> }),
      ...paths(priceSchema as Schema, 'price.'),
      ...paths(rentSchema as Schema, 'rent.'),
      ...paths(addressSchema as Schema, 'address.'),
      ...paths(mediaItemSchema as Schema, 'media.'),
      ...paths(listingAgentSchema as Schema, 'agents.'),
    ];
    expect(wanted).to.include.members(['commercial.highlights', 'rural.carryingCapacity', 'rent.perSqm.max', 'agents.social.linkedIn']);
    const missing = wanted
      .filter((path) => !RESO_ONLY.some((field) => path === field || path.startsWith(`${field}.`)))
      .filter((path) => listings.every((l) => valuesAt(l, path.split('.')).length === 0));
    expect(missing, 'fields no listing of the fixture carries').to.deep.equal([]);
  });

  it('maps the fixture as an agent would expect', () => {
    const [lease, yard, cafe, farm, holiday, land] = listings;
    expect(lease).to.deep.include({ office: 'OFF1', saleMode: 'sale', bothPrices: true, authority: 'eoi', isMultiple: true });
    expect(lease.rent).to.deep.include({ amount: 180000, period: 'year', plusOutgoings: true, tax: 'exclusive', perSqm: { min: 370, max: 415 } });
    expect(lease.commercial.categories).to.deep.equal(['Offices', 'Retail', 'Medical/Consulting']);
    expect(lease.commercial.highlights).to.deep.equal(['Main road exposure', 'Corner site', 'Lift access']);
    expect(lease.features).to.deep.include({ toilets: 2 });
    expect(lease.headline).to.deep.equal({ 'en-AU': 'Corner office & retail' });
    expect(lease.descriptionHtml['en-AU']).to.not.match(/script|onclick|javascript:/);
    expect(lease.media.map((m: any) => m.url ?? `file:${m.file}`)).to.deep.equal([
      'https://cdn.example/com/main.jpg',
      'file:com-lease/a.jpg',
      'https://cdn.example/com/plan.pdf',
      'https://cdn.example/com/brochure.pdf',
      'https://cdn.example/com/contract.pdf',
      'https://cdn.example/com/soi.pdf',
    ]);
    expect(lease.media.filter((m: any) => m.title).map((m: any) => m.title)).to.deep.equal(['Contract of sale', 'Statement of Information']);
    expect(lease.agents[0]).to.deep.include({ sourceAgentId: 'AGENT-17' });
    expect(lease.address).to.deep.include({ site: 'Harbour Tower', subNumber: 'D', streetNumber: '21', streetNumberText: 'Unit D, 21' });
    expect(yard).to.deep.include({ category: 'commercialLand', saleMode: 'rent', auction: { date: '2024-07-20T01:00:00Z' } });
    expect(yard.address).to.deep.include({ lotNumber: '5', display: false });
    expect(yard.rent).to.deep.include({ amount: 48000, displayRange: true, range: { min: 48000, max: 52000 }, plusOutgoings: false });
    expect(cafe.business.lease).to.deep.equal({ amount: 52000, currency: 'AUD', period: 'year', tax: 'inclusive' });
    expect(cafe.price).to.deep.include({ amount: 300000, display: false, text: 'Offers over $280,000' });
    expect(cafe.address).to.deep.include({ subNumber: '23', streetNumber: '541' });
    expect(farm.address).to.deep.include({ lotNumber: '5', streetNumber: '12' });
    expect(farm.ecoFriendly).to.deep.equal(['solarPanels', 'solarHotWater', 'waterTank']);
    expect(holiday.idealFor).to.deep.equal(['couples', 'lrgFamilies', 'retirees']);
    expect(holiday.features).to.deep.include({ toilets: 0 });
    expect(land).to.deep.include({ newConstruction: true, isHomeLandPackage: true, estate: { name: 'Riverside', stage: '2' } });
    expect(land.media.map((m: any) => m.url)).to.deep.equal(['https://cdn.example/land/main.jpg']);
    expect(codes).to.include.members(['identity_spelling', 'media_not_url', 'nonstandard_auction']);
  });
});
