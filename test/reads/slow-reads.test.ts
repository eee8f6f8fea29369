import { expect } from 'chai';
import type { Db } from '../../db/knex.js';
import { eventually, feed } from '../helpers.js';
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

/** Queries waiting for a lock on one of the service's tables (each holds a read connection). */
async function waitingOn(db: Db, table: string): Promise<number> {
  const { rows } = await db.raw('SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = ?::regclass', [`${db.schemaName}.${table}`]);
  return rows[0].n;
}

const until = (condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000) => eventually(what, condition, timeoutMs);

interface Answer {
  status: number;
  retryAfter: string | null;
  body: any;
}

describe('Public reads under slow queries (PostgreSQL): timeouts, shares of the read pool', function () {
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
        expect(odata.error.code).to.equal('ServiceUnavailable');
        expect(odata.error.message).to.match(/did not finish within the time this service gives one read/);
      } finally {
        await release();
      }
      const res = await fetch(`${svc.url}/v1/listings?q=home%20red&sort=relevance`);
      expect(res.status).to.equal(200);
      expect((await res.json()).listings.map((l: { uniqueId: string }) => l.uniqueId)).to.deep.equal(['R1']);
    });
  });

  describe('costly search families', () => {
    let svc: TestService;
    let agent: string;
    before(async () => {
      // Long enough that the held searches wait for the lock, not for the timeout.
      svc = await startWithListings({ DB_READ_TIMEOUT_MS: '60000' });
      const res = await fetch(`${svc.url}/v1/agents`);
      agent = (await res.json()).agents[0].id;
    });
    after(() => svc.close());

    it('cannot take every read connection: a locality search completes while keyword and map searches hold theirs', async () => {
      // A search with agent= reads the agent directory: with it locked, the keyword and map
      // searches below hold their connections (as slow ones would) and the locality search,
      // which does not read it, needs only a free connection.
      const release = await lockTables(svc.db, ['directory_agents']);
      const order: string[] = [];
      const ask = (name: string, path: string): Promise<Answer> =>
        fetch(`${svc.url}${path}`).then(async (res) => {
          order.push(name);
          return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
        });
      const answered = new Set<string>();
      const asked: Promise<Answer>[] = [];
      /** Asks, then waits until the request either holds one more connection or is answered; its answer to come. */
      const hold = async (name: string, path: string): Promise<{ answer: Promise<Answer> }> => {
        const before = await waitingOn(svc.db, 'directory_agents');
        const answer = ask(name, path).finally(() => answered.add(name));
        asked.push(answer);
        await until(async () => answered.has(name) || (await waitingOn(svc.db, 'directory_agents')) > before, `${name} to hold a connection or be answered`);
        return { answer };
      };
      try {
        const { answer: keywordA } = await hold('keyword A', `/v1/listings?q=home&sort=relevance&agent=${agent}`);
        const { answer: keywordB } = await hold('keyword B', `/v1/listings?q=brick&agent=${agent}`);
        const { answer: map } = await hold('map', `/v1/listings?${MAP}&agent=${agent}`);

        const locality = await ask('locality', '/v1/listings?locality=richmond&sort=price');
        expect(locality.status, JSON.stringify(locality.body)).to.equal(200);
        expect(locality.body.listings.map((l: { uniqueId: string }) => l.uniqueId)).to.have.members(['R1', 'R2']);
        expect(order).to.not.include('keyword A');
        // At most 3 of the 5 connections were costly ones, 2 of them keyword searches'.
        expect(await waitingOn(svc.db, 'directory_agents')).to.equal(3);

        // The keyword family had its two connections: the second keyword search waited for one, then was told to come back.
        const b = await keywordB;
        expect(b.status).to.equal(503);
        expect(b.retryAfter).to.equal('2');
        expect(b.body).to.deep.equal({ error: 'too many keyword searches are running at once; try again in a few seconds' });
        await release();
        const a = await keywordA;
        expect(a.status, JSON.stringify(a.body)).to.equal(200);
        expect(a.body.listings.map((l: { uniqueId: string }) => l.uniqueId)).to.have.members(['R1', 'R2']);
        expect(order.indexOf('locality')).to.be.lessThan(order.indexOf('keyword A'));
        // The map search's page took the last costly connection and its count waited for another:
        // it had one once the lock went, or was told to come back if that took over 2 s.
        const m = await map;
        if (m.status === 503) {
          expect(m.body.error).to.equal('too many costly searches (keyword, map, facets, RESO Web API) are running at once; try again in a few seconds');
        } else {
          expect(m.status, JSON.stringify(m.body)).to.equal(200);
        }
      } finally {
        await release();
        await Promise.allSettled(asked);
      }
    });
  });
});
