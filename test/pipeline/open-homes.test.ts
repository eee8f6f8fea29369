/**
 * Inspections read as open homes (issue 61, item 1): every spelling of the fixture list, times in
 * the listing's own zone with daylight saving right (each Australian state in summer and winter,
 * a US and a European listing), unreadable text kept with a warning, auctions alike, and RESO open
 * houses filling the same open homes.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect } from 'chai';
import { DateTime } from 'luxon';
import { parseInspection } from '../../pipeline/inspection-times.js';
import { inStoredZone } from '../../pipeline/local-times.js';
import type { FeedContext, ListingDelta } from '../../pipeline/types.js';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { resoRecord } from '../formats/documents.js';
import { AU_CONTEXT, feed, listingXml } from '../helpers.js';

const spellings = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../test/fixtures/inspections/spellings.json'), 'utf8')) as {
  readable: { text: string; start: string; end: string; zone?: string; monthFirst?: boolean }[];
  unreadable: string[];
};

const utc = (local: string, zone: string) => DateTime.fromISO(local, { zone }).toUTC().toISO({ suppressMilliseconds: true });

async function mapped(xml: string, context: FeedContext = AU_CONTEXT) {
  const result = await validateFeed(feed(xml), context);
  const issues = result.issues.filter((i) => i.code !== 'missing_headline' && i.code !== 'missing_description');
  return { listing: result.listings[0], issues };
}

const address = (state: string, suburb: string, postcode: string, country = '') =>
  `<address><streetNumber>1</streetNumber><street>Main Street</street><suburb>${suburb}</suburb><state>${state}</state><postcode>${postcode}</postcode>${country}</address>`;

describe('open homes and auctions (issue 61)', () => {
  it('reads every spelling of the fixture list as local times', () => {
    for (const s of spellings.readable) {
      const zone = s.zone ?? 'Australia/Melbourne';
      expect(parseInspection(s.text, zone, { monthFirst: s.monthFirst }), s.text).to.deep.equal({ start: utc(s.start, zone), end: utc(s.end, zone) });
    }
  });

  it('reads none of the unreadable texts', () => {
    for (const text of spellings.unreadable) expect(parseInspection(text, 'Australia/Melbourne'), text).to.equal(null);
  });

  it('keeps every text, reads the readable ones as open homes in time order, and warns of the rest', async () => {
    const texts = ['22-Jan-2009 3:00pm to 3:30pm', 'By appointment', 'Wed 21-Jan-2009 11:00AM - 1:00PM'];
    const { listing, issues } = await mapped(
      listingXml(`${address('VIC', 'Richmond', '3121')}<inspectionTimes>${texts.map((t) => `<inspection>${t}</inspection>`).join('')}</inspectionTimes>`),
    );
    expect(listing.inspections).to.deep.equal(texts);
    expect(listing.openHomes).to.deep.equal([
      { start: '2009-01-21T00:00:00Z', end: '2009-01-21T02:00:00Z', text: texts[2] },
      { start: '2009-01-22T04:00:00Z', end: '2009-01-22T04:30:00Z', text: texts[0] },
    ]);
    expect(listing.timeZone).to.equal('Australia/Melbourne');
    expect(issues.map((i) => [i.code, i.path])).to.deep.equal([['invalid_inspection', '/propertyList/residential[1]/inspectionTimes[1]/inspection[2]']]);
  });

  it("reads times in the listing's own zone, summer and winter, in every Australian state and abroad", async () => {
    const places: [string, string, string, string, string, string][] = [
      // state, suburb, postcode, country element, offset on 12 December, offset on 12 July
      ['NSW', 'Parramatta', '2150', '', '+11:00', '+10:00'],
      ['ACT', 'Braddon', '2612', '', '+11:00', '+10:00'],
      ['VIC', 'Richmond', '3121', '', '+11:00', '+10:00'],
      ['TAS', 'Sandy Bay', '7005', '', '+11:00', '+10:00'],
      ['SA', 'Glenelg', '5045', '', '+10:30', '+09:30'],
      ['QLD', 'Southport', '4215', '', '+10:00', '+10:00'],
      ['NT', 'Parap', '0820', '', '+09:30', '+09:30'],
      ['WA', 'Fremantle', '6160', '', '+08:00', '+08:00'],
      ['NY', 'Brooklyn', '11201', '<country>USA</country>', '-05:00', '-04:00'],
      ['Berlin', 'Berlin', '10115', '<country>Germany</country>', '+01:00', '+02:00'],
    ];
    for (const [state, suburb, postcode, country, summer, winter] of places) {
      const inspections =
        '<inspectionTimes><inspection>12-Dec-2026 11:00am to 11:30am</inspection><inspection>12-Jul-2027 11:00am to 11:30am</inspection></inspectionTimes>';
      const { listing } = await mapped(listingXml(`${address(state, suburb, postcode, country)}<auction date="2026-12-19-13:00"/>${inspections}`));
      const at = (iso: string) => new Date(iso).toISOString().replace('.000Z', 'Z');
      expect(
        listing.openHomes?.map((o) => o.start),
        state,
      ).to.deep.equal([at(`2026-12-12T11:00:00${summer}`), at(`2027-07-12T11:00:00${winter}`)]);
      expect(listing.auction?.date, state).to.equal(at(`2026-12-19T13:00:00${summer}`));
    }
  });

  it("a record without an address has its inspections read again in the stored listing's zone", async () => {
    const { listing: perth } = await mapped(listingXml(address('WA', 'Fremantle', '6160')));
    const { listing: noAddress } = await mapped(
      listingXml(
        '<inspectionTimes><inspection>12-Dec-2026 11:00am to 11:30am</inspection></inspectionTimes>',
        'modTime="2026-12-01-10:00:00" status="current"',
      ),
    );
    expect(noAddress.openHomes?.[0].start).to.equal('2026-12-12T00:00:00Z'); // the feed's default zone, Sydney
    const delta: ListingDelta = {
      office: 'OFF1',
      uniqueId: 'L1',
      format: 'reaxml',
      category: 'residential',
      modTime: noAddress.modTime,
      status: 'active',
      openHomes: noAddress.openHomes,
      timeZone: noAddress.timeZone,
      localTimes: { zone: 'Australia/Sydney', inspections: true },
    };
    const moved = inStoredZone(delta, perth);
    expect(moved.openHomes?.[0].start).to.equal('2026-12-12T03:00:00Z');
    expect(moved.timeZone).to.equal('Australia/Perth');
  });

  it('fills open homes from a RESO record that carries its open houses, cancelled ones left out', async () => {
    const result = await validateFeed(
      JSON.stringify(
        resoRecord({
          UnparsedAddress: '1 Main Street, Southport 4215',
          City: 'Southport',
          StateOrProvince: 'QLD',
          PostalCode: '4215',
          OpenHouse: [
            { OpenHouseKey: 'OH2', OpenHouseStartTime: '2026-12-13T10:00:00', OpenHouseEndTime: '2026-12-13T10:30:00', OpenHouseStatus: 'Active' },
            { OpenHouseKey: 'OH1', OpenHouseStartTime: '2026-12-12T01:00:00Z', OpenHouseEndTime: '2026-12-12T01:45:00Z' },
            { OpenHouseKey: 'OH3', OpenHouseStartTime: '2026-12-14T10:00:00', OpenHouseEndTime: '2026-12-14T10:30:00', OpenHouseStatus: 'Cancelled' },
            { OpenHouseKey: 'OH4', OpenHouseStartTime: 'soon' },
          ],
        }),
      ),
      AU_CONTEXT,
      { format: 'reso' },
    );
    expect(result.listings[0].openHomes).to.deep.equal([
      { start: '2026-12-12T01:00:00Z', end: '2026-12-12T01:45:00Z' },
      { start: '2026-12-13T00:00:00Z', end: '2026-12-13T00:30:00Z' },
    ]);
    expect(result.listings[0].timeZone).to.equal('Australia/Brisbane');
    expect(result.issues.filter((i) => i.code === 'invalid_open_house').map((i) => i.path)).to.have.length(1);
  });
});
