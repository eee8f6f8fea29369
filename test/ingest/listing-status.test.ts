import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { feed } from '../helpers.js';
import { startTestService, type TestService } from '../service.js';
import { activeKey, admin, listingWithoutAddress, officeListing, pushFeed } from './client.js';

for (const setup of [
  { name: 'PostgreSQL with BullMQ workers', options: { database: 'postgres', redis: true } },
  { name: 'the embedded default', options: { database: 'pglite' } },
] as const) {
  describe(`GET /v1/feeds/listings/{office}/{uniqueId}: where the owner's listing stands and why (${setup.name})`, function () {
    this.timeout(60_000);
    let svc: TestService;
    let key: string;
    const status = async (office: string, uniqueId: string, as = key) => {
      const res = await fetch(`${svc.url}/v1/feeds/listings/${office}/${uniqueId}`, { headers: { authorization: `Bearer ${as}` } });
      const body = (await res.json()) as any;
      if (res.status === 200) expect(validatorFor('ListingStatus')(body), JSON.stringify(validatorFor('ListingStatus').errors)).to.equal(true);
      return { status: res.status, body };
    };
    const push = async (xml: string, mode?: 'full' | 'incremental') => {
      const res = await pushFeed(svc.url, key, xml, { mode });
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).to.equal(200);
      return body;
    };

    before(async () => {
      svc = await startTestService(setup.options);
      key = await activeKey(svc.db, ['STAT1', 'STAT2', 'STAT3']);
    });
    after(() => svc.close());

    it('a listing on the market: public, in search, and the feed that last carried it with its action', async () => {
      const first = await push(feed(officeListing('STAT1', 'LIVE')));
      let { body } = await status('STAT1', 'LIVE');
      expect(body.listing).to.include({ uniqueId: 'LIVE', status: 'active' });
      expect(body.public).to.deep.equal({ readable: true, inSearch: true, reason: null, explanation: null });
      expect(body.quarantine).to.equal(null);
      expect(body.lastFeed).to.include({ feedId: first.feedId, action: 'inserted', outcome: 'ok', mode: 'incremental', source: 'api' });
      const again = await push(feed(officeListing('STAT1', 'LIVE')));
      ({ body } = await status('STAT1', 'LIVE'));
      expect(body.lastFeed).to.include({ feedId: again.feedId, action: 'unchanged' });
    });

    it('says why a stored listing is not in search: sold, withdrawn, hidden by an operator, archived by a full feed', async () => {
      await push(feed(officeListing('STAT1', 'SOLD', { status: 'sold' }), officeListing('STAT1', 'GONE'), officeListing('STAT1', 'HID')));
      await push(feed(officeListing('STAT1', 'GONE', { status: 'withdrawn', modTime: '2024-03-02-10:00:00' })));
      expect((await admin(svc.url, 'POST', '/v1/admin/listings/visibility', { officeId: 'STAT1', uniqueId: 'HID', hidden: true })).status).to.equal(200);
      expect((await status('STAT1', 'SOLD')).body.public).to.include({ readable: true, inSearch: false, reason: 'sold' });
      const gone = (await status('STAT1', 'GONE')).body;
      expect(gone.public).to.include({ readable: false, inSearch: false, reason: 'withdrawn' });
      expect(gone.public.explanation).to.include('withdrew');
      expect(gone.listing.status).to.equal('withdrawn');
      const hidden = (await status('STAT1', 'HID')).body;
      expect(hidden.public).to.include({ readable: false, inSearch: false, reason: 'hidden_by_operator' });
      expect(hidden.listing).to.include({ hidden: true });

      await push(feed(officeListing('STAT2', 'KEEP'), officeListing('STAT2', 'DROP')));
      const full = await push(feed(officeListing('STAT2', 'KEEP')), 'full');
      expect(full.reconcile.status).to.equal('applied');
      const dropped = (await status('STAT2', 'DROP')).body;
      expect(dropped.public).to.include({ readable: false, reason: 'archived' });
      expect(dropped.lastFeed.feedId, 'the full feed did not carry it: the last that did is the first').to.not.equal(full.feedId);
    });

    it('names a listing never sent valid, with the last feed that refused it and its issues', async () => {
      const refused = await push(feed(listingWithoutAddress('STAT1', 'NEVER'), officeListing('STAT1', 'FINE')));
      const { status: code, body } = await status('STAT1', 'NEVER');
      expect(code).to.equal(200);
      expect(body.listing).to.equal(null);
      expect(body.public).to.include({ readable: false, inSearch: false, reason: 'never_valid' });
      expect(body.lastFeed).to.include({ feedId: refused.feedId, action: 'refused', outcome: 'with_invalid' });
      expect(body.lastFeed.issues.length).to.be.at.least(1);
      expect(body.lastFeed.issues.every((i: any) => i.uniqueId === 'NEVER')).to.equal(true);
      expect(body.lastFeed.issues.some((i: any) => i.level === 'error')).to.equal(true);
    });

    it('shows an open circuit-breaker review holding the listing’s archive', async () => {
      // Seven of eight gone: more than CIRCUIT_BREAKER_MIN (5) and than CIRCUIT_BREAKER_RATIO (0.2) of them.
      const ids = ['Q1', 'Q2', 'Q3', 'Q4', 'Q5', 'Q6', 'Q7', 'Q8'];
      await push(feed(...ids.map((id) => officeListing('STAT3', id))));
      const full = await push(feed(officeListing('STAT3', 'Q1')), 'full');
      expect(full.reconcile.status).to.equal('tripped');
      const held = (await status('STAT3', 'Q6')).body;
      expect(held.quarantine).to.include({ feedId: full.feedId });
      expect(held.public, 'still public while the review is open').to.include({ inSearch: true, reason: null });
      expect((await status('STAT3', 'Q1')).body.quarantine).to.equal(null);
    });

    it("answers 404 for another office's listing, and for one nothing is known of", async () => {
      const other = await activeKey(svc.db, ['ELSEWHERE']);
      const refused = await status('STAT1', 'LIVE', other);
      expect(refused.status).to.equal(404);
      expect(refused.body.error).to.include('no listing STAT1/LIVE for this key');
      expect((await status('STAT1', 'NO-SUCH-LISTING')).status).to.equal(404);
    });
  });
}
