import { expect } from 'chai';
import type { Db } from '../../db/knex.js';
import { feed } from '../helpers.js';
import { activeKey, directorySettled, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';

const listing = (id: string, headline: string) =>
  `<residential modTime="2024-03-01-10:00:00" status="current"><agentID>OFF1</agentID><uniqueID>${id}</uniqueID>` +
  '<listingAgent id="1"><name>Jane Citizen</name><email>jane@off1.example</email></listingAgent>' +
  `<headline>${headline}</headline><description>Close to shops.</description><price>500000</price>` +
  '<address><streetNumber>1</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address></residential>';

/** Richmond, Victoria, and around it. */
const MAP = 'bbox=144.9,-37.9,145.1,-37.7';

async function startWithListings(env: Record<string, string>): Promise<TestService> {
  const svc = await startTestService({ database: 'postgres', env });
  const key = await activeKey(svc.db, ['OFF1']);
  expect((await pushFeed(svc.url, key, feed(listing('R1', 'Red brick home'), listing('R2', 'Quiet home near the park')))).status).to.equal(200);
  await directorySettled(svc.db);
  return svc;
}

/**
 * Locks tables of the service's schema from a transaction of its own until the returned function
 * is called: every query of them waits, holding its connection, as a slow query would.
 */
async function lockTables(db: Db, tables: string[]): Promise<() => Promise<void>> {
  const trx = await db.transaction();
  await trx.raw(`LOCK TABLE ${tables.map(() => '??').join(', ')} IN ACCESS EXCLUSIVE MODE`, tables);
  return async () => {
    if (!trx.isCompleted()) await trx.rollback();
  };
}

describe('Public reads under slow queries (PostgreSQL)', function () {
  this.timeout(60_000);

  describe('a read past DB_READ_TIMEOUT_MS', () => {
    let svc: TestService;
    before(async () => {
      svc = await startWithListings({ DB_READ_TIMEOUT_MS: '500' });
    });
    after(() => svc.close());

    it('answers 503 with {error} in every public read family (the statement timeout was a 500), and reads answer again after', async () => {
      const release = await lockTables(svc.db, ['listings', 'directory_agents', 'directory_offices']);
      try {
        for (const path of [
          '/v1/listings?q=home%20red&sort=relevance&facets=category,locality',
          '/v1/listings?locality=richmond',
          `/v1/listings?${MAP}`,
          '/v1/listings/OFF1/R1',
          '/v1/agents?query=jane',
          '/v1/offices',
        ]) {
          const res = await fetch(`${svc.url}${path}`);
          const body = await res.json();
          expect(res.status, `${path}: ${JSON.stringify(body)}`).to.equal(503);
          expect(body, path).to.deep.equal({ error: 'the database took longer to answer than this service allows; try again shortly, or ask for less' });
        }
        const reso = await fetch(`${svc.url}/v1/reso/Property?$filter=${encodeURIComponent("City eq 'Richmond'")}&$count=true`);
        const odata = await reso.json();
        expect(reso.status, JSON.stringify(odata)).to.equal(503);
        expect(odata.error.code).to.equal('ServiceError');
        expect(odata.error.message).to.match(/took longer to answer than this service allows/);
      } finally {
        await release();
      }
      const res = await fetch(`${svc.url}/v1/listings?q=home%20red&sort=relevance`);
      expect(res.status).to.equal(200);
      expect((await res.json()).listings.map((l: { uniqueId: string }) => l.uniqueId)).to.deep.equal(['R1']);
    });
  });
});
