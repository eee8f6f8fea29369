import { expect } from 'chai';
import type { Knex } from 'knex';
import { validatorFor } from '../../api/validators.js';
import type { ListingSearch } from '../../db/listing-search/search.js';
import { createPublicReads } from '../../db/public-reads.js';
import { eventually, feed } from '../helpers.js';
import { activeKey, directorySettled, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';

const listing = (id: string, day: number, category = 'residential') =>
  `<${category} modTime="2024-03-${String(day).padStart(2, '0')}-10:00:00" status="current"><agentID>OFF1</agentID><uniqueID>${id}</uniqueID>` +
  `<listingAgent id="1"><name>Ann Smith</name><email>ann@agency.example</email></listingAgent><headline>${id}</headline><price>500000</price>` +
  '<address><streetNumber>1</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address>' +
  `</${category}>`;

/**
 * Runs `request` while `table` is locked, and cancels (as a statement timeout does: SQLSTATE 57014)
 * the statements waiting for it whose text matches one of `cancel`, once every one is waiting; the
 * rest (the page) run when the lock goes. What a count past DB_READ_TIMEOUT_MS does to an answer,
 * on a table of a few rows.
 */
async function withCountsCancelled<T>(db: Knex, table: string, cancel: RegExp[], request: () => Promise<T>): Promise<T> {
  const lock = await db.transaction();
  try {
    await lock.raw('LOCK TABLE ?? IN ACCESS EXCLUSIVE MODE', [table]);
    const answer = request();
    answer.catch(() => undefined);
    const waiting = async () =>
      (
        await db.raw(
          `SELECT a.pid, a.query FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.relation = ?::regclass AND NOT l.granted`,
          [table],
        )
      ).rows as { pid: number; query: string }[];
    const found = await eventually(`statements waiting for ${table} matching ${cancel.join(', ')}`, async () => {
      const rows = await waiting();
      const matched = cancel.map((pattern) => rows.find((r) => pattern.test(r.query))).filter((r) => r !== undefined);
      return matched.length === cancel.length && matched;
    });
    for (const { pid } of found) await db.raw('SELECT pg_cancel_backend(?)', [pid]);
    await lock.rollback();
    return await answer;
  } finally {
    if (!lock.isCompleted()) await lock.rollback();
  }
}

const COUNT = (table: string) => new RegExp(`^select count\\(\\*\\) as "n" from "${table}"`);
/** A listing search's count: of its matches up to the exact-total bound (SEARCH_EXACT_TOTAL_MAX). */
const LISTING_COUNT = /^select count\(\*\) as "n" from \(select 1 from "listings"/;
const FACETS = /GROUPING SETS/;

describe('Public reads: a total or facet count that does not finish (PostgreSQL)', function () {
  this.timeout(60_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ database: 'postgres' });
    const key = await activeKey(svc.db, ['OFF1']);
    const res = await pushFeed(svc.url, key, feed(listing('A', 1), listing('B', 2), listing('C', 3, 'land')));
    expect(res.status).to.equal(200);
    await directorySettled(svc.db);
  });
  after(() => svc.close());

  const get = async (path: string) => {
    const res = await fetch(`${svc.url}${path}`);
    return { status: res.status, body: await res.json() };
  };

  it('answers the page with total and facets null, never 0 or empty, and keeps saying so until counted again', async () => {
    const answer = await withCountsCancelled(svc.db, 'listings', [LISTING_COUNT, FACETS], () => get('/v1/listings?facets=category'));
    expect(answer.status).to.equal(200);
    expect(
      answer.body.listings.map((l: { uniqueId: string }) => l.uniqueId),
      'the page is whole',
    ).to.deep.equal(['C', 'B', 'A']);
    expect(answer.body.total, 'not counted: null, not 0').to.equal(null);
    expect(answer.body.facets, 'not counted: null, not left out').to.equal(null);
    expect(validatorFor('ListingPage')(answer.body), JSON.stringify(validatorFor('ListingPage').errors)).to.equal(true);
    // The failed count is kept like a count (no new one per request until it expires): still null, not a guess.
    const again = await get('/v1/listings?facets=category');
    expect([again.body.total, again.body.facets, again.body.listings.length]).to.deep.equal([null, null, 3]);
    // Another filter set is counted as usual.
    expect((await get('/v1/listings?category=land')).body.total).to.equal(1);
  });

  it('answers an agents page with total null when its count does not finish', async () => {
    const answer = await withCountsCancelled(svc.db, 'directory_agents', [COUNT('directory_agents')], () => get('/v1/agents'));
    expect(answer.status).to.equal(200);
    expect(answer.body.agents.map((a: { name: string }) => a.name)).to.deep.equal(['Ann Smith']);
    expect(answer.body.total).to.equal(null);
    expect(validatorFor('AgentPage')(answer.body), JSON.stringify(validatorFor('AgentPage').errors)).to.equal(true);
  });

  it('counts again once the kept outcome expires, and the exact total returns', async () => {
    const reads = createPublicReads(svc.db, { totalTtlMs: 100 });
    const search: ListingSearch = { saleMode: 'both', sort: { key: 'newest', reverse: false }, limit: 10, offset: 0 };
    const first = await withCountsCancelled(svc.db, 'listings', [LISTING_COUNT], () => reads.searchListings(search));
    expect([first.total, first.json.length]).to.deep.equal([null, 3]);
    await eventually('the total counted again after the TTL', async () => (await reads.searchListings(search)).total === 3, 4000);
  });
});
