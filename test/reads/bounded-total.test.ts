import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { feed } from '../helpers.js';
import { activeKey, admin, officeListing, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';

/** The bound in this test: a search's total is exact up to 4 matches. */
const BOUND = 4;

describe('Public reads: a listing search counts at most SEARCH_EXACT_TOTAL_MAX matches, and says when its total is a lower bound (PostgreSQL)', function () {
  this.timeout(90_000);
  let svc: TestService;
  const get = async (path: string) => {
    const res = await fetch(`${svc.url}${path}`);
    return { status: res.status, body: (await res.json()) as any };
  };

  before(async () => {
    svc = await startTestService({ database: 'postgres', env: { SEARCH_EXACT_TOTAL_MAX: String(BOUND) } });
    const key = await activeKey(svc.db, ['BIG1', 'SMALL1']);
    const big = Array.from({ length: 7 }, (_, i) => officeListing('BIG1', `B${i}`));
    expect((await pushFeed(svc.url, key, feed(...big, officeListing('SMALL1', 'S1'), officeListing('SMALL1', 'S2')))).status).to.equal(200);
  });
  after(async () => {
    await svc?.close();
  });

  it('answers the bound with totalIsLowerBound past it, and still pages to every match', async () => {
    const first = await get('/v1/listings?office=BIG1&limit=3');
    expect(first.status).to.equal(200);
    const validate = validatorFor('ListingPage');
    expect(validate(first.body), JSON.stringify(validate.errors)).to.equal(true);
    expect(first.body).to.include({ total: BOUND, totalIsLowerBound: true });
    const seen: string[] = first.body.listings.map((l: any) => l.uniqueId);
    let next = first.body.next;
    while (next) {
      const page = await get(`/v1/listings?office=BIG1&limit=3&cursor=${encodeURIComponent(next)}`);
      expect(page.body.totalIsLowerBound).to.equal(true);
      seen.push(...page.body.listings.map((l: any) => l.uniqueId));
      next = page.body.next;
    }
    expect(seen.sort()).to.deep.equal(['B0', 'B1', 'B2', 'B3', 'B4', 'B5', 'B6']);
  });

  it('answers an exact total up to the bound, the bound itself included', async () => {
    expect((await get('/v1/listings?office=SMALL1')).body).to.include({ total: 2, totalIsLowerBound: false });
    // Exactly the bound: every match counted, so exact (an operator hides three; a filter set not counted before).
    for (const uniqueId of ['B4', 'B5', 'B6']) {
      const res = await admin(svc.url, 'POST', '/v1/admin/listings/visibility', { officeId: 'BIG1', uniqueId, hidden: true });
      expect(res.status).to.equal(200);
    }
    const atBound = await get('/v1/listings?office=BIG1&status=active');
    expect(atBound.body).to.include({ total: BOUND, totalIsLowerBound: false });
    expect(atBound.body.listings).to.have.length(BOUND);
  });
});
