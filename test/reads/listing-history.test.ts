import { expect } from 'chai';
import { feed } from '../helpers.js';
import { activeKey, pushFeed } from '../ingest/client.js';
import { odataGet } from '../reso/odata-client.js';
import { startTestService, type TestService } from '../service.js';

const ADDRESS =
  '<address><streetNumber>1</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address>';

/** A listing in one state of its life: a price (displayed or not), a status, under offer, sold details. */
function listing(
  id: string,
  day: number,
  options: { price?: number; display?: 'yes' | 'no'; status?: string; underOffer?: boolean; sold?: { price: number; display: 'yes' | 'no' } },
): string {
  const sold = options.sold
    ? `<soldDetails><soldPrice display="${options.sold.display}">${options.sold.price}</soldPrice><soldDate>2024-03-${String(day).padStart(2, '0')}</soldDate></soldDetails>`
    : '';
  return (
    `<residential modTime="2024-03-${String(day).padStart(2, '0')}-10:00:00" status="${options.status ?? 'current'}"><agentID>OFF1</agentID><uniqueID>${id}</uniqueID>` +
    `<headline>Home ${id}</headline><price display="${options.display ?? 'yes'}">${options.price ?? 500000}</price>${options.underOffer ? '<underOffer value="yes"/>' : ''}${sold}${ADDRESS}</residential>`
  );
}

type Event = { type: string; at: string; price?: { amount: number }; previousPrice?: { amount: number }; soldPrice?: { amount: number } };

for (const database of ['pglite', 'postgres'] as const) {
  describe(`A listing's public history from the change log (${database})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let key: string;
    before(async () => {
      svc = await startTestService({ database });
      key = await activeKey(svc.db, ['OFF1']);
    });
    after(() => svc.close());

    /** Sends each state in turn, as a CRM pushing the listing's life one change at a time. */
    const live = async (...states: string[]) => {
      for (const state of states) {
        const res = await pushFeed(svc.url, key, feed(state));
        expect(res.status, await res.text()).to.equal(200);
      }
    };
    const history = async (id: string, query = '') => {
      const res = await fetch(`${svc.url}/v1/listings/OFF1/${id}/history${query}`);
      return { status: res.status, body: await res.json() };
    };
    const shape = (events: Event[]) => events.map((e) => [e.type, e.price?.amount ?? null, e.previousPrice?.amount ?? null, e.soldPrice?.amount ?? null]);

    it('listed, price changes, under offer and sold, newest first, each with its time', async () => {
      await live(
        listing('A', 1, { price: 500_000 }),
        listing('A', 2, { price: 480_000 }),
        listing('A', 3, { price: 480_000, underOffer: true }),
        listing('A', 4, { price: 480_000, status: 'sold', sold: { price: 475_000, display: 'yes' } }),
      );
      const { status, body } = await history('A');
      expect(status).to.equal(200);
      expect(shape(body.events)).to.deep.equal([
        ['sold', null, null, 475_000],
        ['under_offer', null, null, null],
        ['price_changed', 480_000, 500_000, null],
        ['listed', 500_000, null, null],
      ]);
      const times = body.events.map((e: Event) => Date.parse(e.at));
      expect(times.every((t: number) => Number.isFinite(t))).to.equal(true);
      expect([...times].sort((a, b) => b - a)).to.deep.equal(times);
      expect(body.next).to.equal(null);
    });

    it('an amount withheld when it applied never appears', async () => {
      await live(listing('B', 1, { price: 600_000 }), listing('B', 2, { price: 580_000, display: 'no' }), listing('B', 3, { price: 560_000 }));
      const { body } = await history('B');
      expect(shape(body.events)).to.deep.equal([
        ['price_changed', 560_000, null, null],
        ['listed', 600_000, null, null],
      ]);
      expect(JSON.stringify(body)).to.not.include('580000');
      // The RESO Property carries the same history, as the public saw it.
      const reso = await odataGet(
        `${svc.url}/v1/reso/Property('${encodeURIComponent('OFF1/B')}')?$select=ListPrice,OriginalListPrice,PreviousListPrice,PriceChangeTimestamp,StatusChangeTimestamp`,
      );
      expect(reso.body).to.include({ ListPrice: 560_000, OriginalListPrice: 600_000, PreviousListPrice: null });
      expect(Date.parse(reso.body.PriceChangeTimestamp)).to.be.closeTo(Date.parse(body.events[0].at), 1);
    });

    it('while the agent withholds the price now, no amount appears at all (nor a withheld sold price)', async () => {
      await live(listing('C', 1, { price: 700_000 }), listing('C', 2, { price: 690_000 }), listing('C', 3, { price: 690_000, display: 'no' }));
      const { body } = await history('C');
      expect(shape(body.events)).to.deep.equal([
        ['price_changed', null, null, null],
        ['listed', null, null, null],
      ]);
      expect(JSON.stringify(body)).to.not.match(/700000|690000/);
      const reso = await odataGet(`${svc.url}/v1/reso/Property('${encodeURIComponent('OFF1/C')}')?$select=ListPrice,OriginalListPrice,PreviousListPrice`);
      expect(reso.body).to.include({ ListPrice: null, OriginalListPrice: null, PreviousListPrice: null });
      await live(listing('D', 1, { price: 300_000 }), listing('D', 2, { price: 300_000, status: 'sold', sold: { price: 310_000, display: 'no' } }));
      expect(shape((await history('D')).body.events)).to.deep.equal([
        ['sold', null, null, null],
        ['listed', 300_000, null, null],
      ]);
    });

    it('withdrawn and back on the market; a listing that is not public has no public history', async () => {
      await live(listing('E', 1, {}), listing('E', 2, { status: 'withdrawn' }));
      const gone = await history('E');
      expect(gone.status).to.equal(404);
      expect(gone.body.error).to.match(/no public listing OFF1\/E/);
      await live(listing('E', 3, { price: 520_000 }));
      expect(shape((await history('E')).body.events)).to.deep.equal([
        ['price_changed', 520_000, 500_000, null],
        ['back_on_market', null, null, null],
        ['withdrawn', null, null, null],
        ['listed', 500_000, null, null],
      ]);
      expect((await history('nobody')).status).to.equal(404);
    });

    it('pages by cursor, and refuses a bad one', async () => {
      const first = await history('A', '?limit=3');
      expect(first.body.events).to.have.length(3);
      expect(first.body.next).to.be.a('string');
      const rest = await history('A', `?limit=3&cursor=${first.body.next}`);
      expect(shape(rest.body.events)).to.deep.equal([['listed', 500_000, null, null]]);
      expect(rest.body.next).to.equal(null);
      const bad = await history('A', '?cursor=x1');
      expect(bad.status).to.equal(400);
      expect(bad.body.error).to.match(/cursor/);
    });
  });
}
