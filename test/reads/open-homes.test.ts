import { expect } from 'chai';
import ICAL from 'ical.js';
import { feed } from '../helpers.js';
import { activeKey, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';

/**
 * Open homes and auctions in public reads (issue 61, item 2): a listing's openHomes (those not yet
 * ended) and auction, searches by day in each listing's own zone (across midnight UTC) and by
 * instant, sort=nextOpenHome with cursors, and the calendars (.ics) read back by a second iCal
 * library (ical.js, a parser: the service writes them with ical-generator): time zones, UIDs
 * stable across feeds, a withheld street never in them.
 */

const address = (street: string, suburb: string, state: string, postcode: string, display = 'yes') =>
  `<address display="${display}"><streetNumber>7</streetNumber><street>${street}</street><suburb>${suburb}</suburb><state>${state}</state><postcode>${postcode}</postcode></address>`;

const listing = (office: string, id: string, inner: string, modTime = '2026-11-01-10:00:00') =>
  `<residential modTime="${modTime}" status="current"><agentID>${office}</agentID><uniqueID>${id}</uniqueID><headline>Home ${id}</headline><description>Nice.</description><price>900000</price>${inner}</residential>`;

const inspections = (...texts: string[]) => `<inspectionTimes>${texts.map((t) => `<inspection>${t}</inspection>`).join('')}</inspectionTimes>`;

const SYDNEY = (modTime?: string, headline = '') =>
  listing(
    'OFF1',
    'SYD',
    `${address('Harbour Street', 'Parramatta', 'NSW', '2150')}<auction date="2030-12-20-13:00"/>${headline}` +
      inspections('13-Dec-2030 9:00am to 9:30am', '21-Jan-2009 11:00am to 1:00pm', 'By appointment'),
    modTime,
  );
const FEED = feed(
  SYDNEY(),
  // 7:30 on 12 December in Perth is 23:30 on 11 December UTC.
  listing('OFF1', 'PER', `${address('Ocean Road', 'Fremantle', 'WA', '6160')}${inspections('Thu 12-Dec-2030 7:30AM - 8:00AM')}`),
  listing('OFF1', 'HIDDEN', `${address('Secret Street', 'Richmond', 'VIC', '3121', 'no')}${inspections('Sat 14-Dec-2030 10:00am to 10:30am')}`),
  listing('OFF1', 'NONE', address('Plain Street', 'Richmond', 'VIC', '3121')),
  listing('OFF1', 'NONE2', address('Plain Street', 'Hawthorn', 'VIC', '3122')),
  listing('OFF1', 'PAST', `${address('Old Street', 'Richmond', 'VIC', '3121')}${inspections('21-Jan-2009 11:00am to 1:00pm')}`),
);

/** The events of a calendar as ical.js reads them: UID, start and end as UTC instants, TZID, summary and location. */
function readCalendar(text: string) {
  const calendar = new ICAL.Component(ICAL.parse(text));
  const zones = calendar.getAllSubcomponents('vtimezone').map((z) => {
    const zone = new ICAL.Timezone(z);
    ICAL.TimezoneService.register(zone, zone.tzid);
    return zone.tzid;
  });
  const events = calendar.getAllSubcomponents('vevent').map((v) => {
    const event = new ICAL.Event(v);
    return {
      uid: event.uid,
      start: event.startDate.toJSDate().toISOString(),
      end: event.endDate.toJSDate().toISOString(),
      tzid: v.getFirstProperty('dtstart')?.getParameter('tzid'),
      summary: event.summary,
      location: event.location,
    };
  });
  return { zones, events };
}

for (const database of ['postgres', 'pglite'] as const) {
  describe(`open homes and auctions in public reads and calendars (${database})`, function () {
    this.timeout(240_000);
    let svc: TestService;
    let key: string;
    before(async () => {
      svc = await startTestService({ database });
      key = await activeKey(svc.db, ['OFF1']);
      const body = await (await pushFeed(svc.url, key, FEED)).json();
      expect(body.counts, JSON.stringify(body.issues)).to.deep.equal({ parsed: 6, valid: 6, invalid: 0 });
    });
    after(() => svc.close());

    const json = async (path: string) => {
      const res = await fetch(`${svc.url}${path}`);
      return { status: res.status, body: await res.json() };
    };
    const keys = async (query: string) => {
      const { status, body } = await json(`/v1/listings?${query}`);
      expect(status, JSON.stringify(body)).to.equal(200);
      return body.listings.map((l: { uniqueId: string }) => l.uniqueId);
    };

    it('a listing carries its open homes not yet ended, its inspections less the ended, and its auction', async () => {
      const { body } = await json('/v1/listings/OFF1/SYD');
      expect(body.openHomes).to.deep.equal([{ start: '2030-12-12T22:00:00Z', end: '2030-12-12T22:30:00Z' }]);
      expect(body.inspections).to.deep.equal(['13-Dec-2030 9:00am to 9:30am', 'By appointment']);
      expect(body.auction).to.deep.equal({ date: '2030-12-20T02:00:00Z' });
      expect(body.timeZone).to.equal('Australia/Sydney');
      const past = (await json('/v1/listings/OFF1/PAST')).body;
      expect(past.openHomes).to.deep.equal([]);
      expect(past.inspections).to.deep.equal([]);
      expect((await json('/v1/listings/OFF1/NONE')).body.openHomes).to.deep.equal([]);
      // The search answers carry the same.
      const found = (await json('/v1/listings?office=OFF1&limit=50')).body.listings.find((l: { uniqueId: string }) => l.uniqueId === 'SYD');
      expect(found.openHomes).to.deep.equal(body.openHomes);
    });

    it("searches by day in each listing's own zone, across midnight UTC", async () => {
      // SYD opens at 09:00 on the 13th in Sydney (22:00 on the 12th UTC); PER at 07:30 on the 12th in Perth (23:30 on the 11th UTC).
      expect(await keys('openFrom=2030-12-13&openTo=2030-12-13')).to.deep.equal(['SYD']);
      expect(await keys('openFrom=2030-12-12&openTo=2030-12-12')).to.deep.equal(['PER']);
      expect(await keys('openFrom=2030-12-11&openTo=2030-12-11')).to.deep.equal([]);
      expect((await keys('openFrom=2030-12-12&openTo=2030-12-14')).sort()).to.deep.equal(['HIDDEN', 'PER', 'SYD']);
      expect((await keys('openFrom=2030-12-13')).sort()).to.deep.equal(['HIDDEN', 'SYD']);
      expect(await keys('openTo=2030-12-12')).to.deep.equal(['PER']);
      // Instants: the window overlaps the open home.
      expect(await keys('openFrom=2030-12-12T22:10:00Z&openTo=2030-12-12T22:20:00Z')).to.deep.equal(['SYD']);
      expect(await keys('openFrom=2030-12-12T22:30:00Z&openTo=2030-12-12T23:00:00Z')).to.deep.equal([]);
      // An ended open home is no open home: the past one matches no day.
      expect(await keys('openFrom=2009-01-21&openTo=2009-01-21')).to.deep.equal([]);
    });

    it('refuses a window that ends before it starts, and a date that is none', async () => {
      for (const query of ['openFrom=2030-12-14&openTo=2030-12-13', 'openFrom=2030-12-13T10:00:00Z&openTo=2030-12-13T09:00:00Z', 'openFrom=2030-02-30']) {
        const { status, body } = await json(`/v1/listings?${query}`);
        expect(status, query).to.equal(400);
        expect(body.error, query).to.match(/openFrom|openTo/);
      }
    });

    it('sorts by the next open home, those without one last either way, and pages on with cursors', async () => {
      expect(await keys('sort=nextOpenHome&office=OFF1')).to.deep.equal(['PER', 'SYD', 'HIDDEN', 'NONE', 'NONE2', 'PAST']);
      expect(await keys('sort=-nextOpenHome&office=OFF1')).to.deep.equal(['HIDDEN', 'SYD', 'PER', 'PAST', 'NONE2', 'NONE']);
      const seen: string[] = [];
      let next: string | null = null;
      do {
        const { body } = await json(`/v1/listings?sort=nextOpenHome&office=OFF1&limit=2${next ? `&cursor=${next}` : ''}`);
        seen.push(...body.listings.map((l: { uniqueId: string }) => l.uniqueId));
        next = body.next;
      } while (next);
      expect(seen).to.deep.equal(['PER', 'SYD', 'HIDDEN', 'NONE', 'NONE2', 'PAST']);
    });

    it("answers a listing's calendar: one VEVENT per open home and auction, in its zone, read back by ical.js", async () => {
      const res = await fetch(`${svc.url}/v1/listings/OFF1/SYD/calendar.ics`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/calendar/);
      const text = await res.text();
      const { zones, events } = readCalendar(text);
      expect(zones).to.deep.equal(['Australia/Sydney']);
      expect(events.map(({ start, end, tzid }) => ({ start, end, tzid }))).to.deep.equal([
        { start: '2030-12-12T22:00:00.000Z', end: '2030-12-12T22:30:00.000Z', tzid: 'Australia/Sydney' },
        { start: '2030-12-20T02:00:00.000Z', end: '2030-12-20T03:00:00.000Z', tzid: 'Australia/Sydney' },
      ]);
      expect(events[0].summary).to.equal('Open home: 7 Harbour Street, Parramatta NSW 2150');
      expect(events[1].summary).to.equal('Auction: 7 Harbour Street, Parramatta NSW 2150');
      expect(events[0].location).to.equal('7 Harbour Street, Parramatta NSW 2150');
      // Local wall-clock times with their zone, as RFC 5545 writes them.
      expect(text).to.include('DTSTART;TZID=Australia/Sydney:20301213T090000');

      // Another feed carrying the same times (the listing changed otherwise): the same UIDs.
      const again = await (
        await pushFeed(svc.url, key, feed(SYDNEY('2026-11-02-10:00:00', '<priceView>Offers over 900k</priceView>')), { mode: 'incremental' })
      ).json();
      expect(again.counts.valid).to.equal(1);
      const after = readCalendar(await (await fetch(`${svc.url}/v1/listings/OFF1/SYD/calendar.ics`)).text());
      expect(after.events.map((e) => e.uid)).to.deep.equal(events.map((e) => e.uid));
      expect(new Set(events.map((e) => e.uid)).size).to.equal(2);
    });

    it("answers an office's calendar, with a withheld street never in it", async () => {
      const res = await fetch(`${svc.url}/v1/offices/OFF1/calendar.ics`);
      expect(res.status).to.equal(200);
      const text = await res.text();
      const { zones, events } = readCalendar(text);
      expect(zones.sort()).to.deep.equal(['Australia/Melbourne', 'Australia/Perth', 'Australia/Sydney']);
      expect(events.map((e) => e.start)).to.deep.equal([
        '2030-12-11T23:30:00.000Z',
        '2030-12-12T22:00:00.000Z',
        '2030-12-13T23:00:00.000Z',
        '2030-12-20T02:00:00.000Z',
      ]);
      const hidden = events[2];
      expect(hidden.tzid).to.equal('Australia/Melbourne');
      expect(hidden.location).to.equal('Richmond VIC 3121');
      expect(text).not.to.match(/Secret/i);
      expect(text).to.include('DTSTART;TZID=Australia/Perth:20301212T073000');
    });

    it('answers 404 for the calendar of a listing not on the market, and an empty calendar for an office without events', async () => {
      expect((await fetch(`${svc.url}/v1/listings/OFF1/NOPE/calendar.ics`)).status).to.equal(404);
      const res = await fetch(`${svc.url}/v1/offices/OTHER/calendar.ics`);
      expect(res.status).to.equal(200);
      expect(readCalendar(await res.text()).events).to.deep.equal([]);
    });
  });
}
