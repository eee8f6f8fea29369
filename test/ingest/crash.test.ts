import { expect } from 'chai';
import { eventually, feed } from '../helpers.js';
import { freePort, scratchRoles } from '../processes.js';
import { redisUrl } from '../service.js';
import { activeKey, officeListing, pushFeed } from './client.js';

/**
 * Large enough that the worker is killed with most of the feed still to store (it is killed once
 * 1,000 are stored, two of the ingest's 500-listing batches; the other 4,000 take seconds more),
 * small enough that the two ingests (the killed one and the retry) take little of the suite's time.
 */
const LISTINGS = 5_000;

describe('A worker killed in the middle of a feed (separate processes, PostgreSQL + Redis)', function () {
  this.timeout(180_000);
  const roles = scratchRoles();

  const bigFeed = feed(...Array.from({ length: LISTINGS }, (_, i) => officeListing('OFF1', `L${i}`)));
  const waitUntil = (what: string, check: () => Promise<boolean>) => eventually(what, check, 120_000);

  for (const setup of ['all-in-one with the in-process queue', 'web and worker roles on BullMQ'] as const) {
    it(`${setup}: the retry converges with nothing lost or duplicated`, async () => {
      const onBull = setup.includes('BullMQ');
      const port = await freePort();
      const env = {
        DATABASE_URL: roles.url,
        PORT: String(port),
        FEED_SYNC_WAIT_MS: '0',
        LOG_LEVEL: 'info',
        ...(onBull ? { REDIS_URL: redisUrl } : {}),
      };
      const start = (entry: string) => roles.start(entry, env);
      const web = start(onBull ? 'api/main.js' : 'main.js');
      await web.waitFor('"listening"');
      const db = roles.db;
      await db('listings').del();
      let worker = onBull ? start('workers/main.js') : web;
      if (onBull) await worker.waitFor('"worker started"');

      const key = await activeKey(db, ['OFF1']);
      const res = await pushFeed(`http://127.0.0.1:${port}`, key, bigFeed);
      expect(res.status).to.equal(202);
      const { feedId } = await res.json();

      // Kill the process that runs the job once part of the feed is stored.
      await waitUntil('the first listings', async () => Number((await db('listings').count({ n: '*' }))[0].n) >= 1000);
      worker.child.kill('SIGKILL');
      await worker.exited;
      const partial = Number((await db('listings').count({ n: '*' }))[0].n);
      expect((await db('feed_events').where({ id: feedId }).first()).status).to.equal('running');
      expect(partial).to.be.below(LISTINGS);

      // A new process picks the feed up again: at start (in-process) or once BullMQ sees the job stalled.
      worker = onBull ? start('workers/main.js') : start('main.js');
      const event = await (async () => {
        let row: { status: string; attempts: number; result: any } | undefined;
        await waitUntil('the feed to finish', async () => {
          row = await db('feed_events').where({ id: feedId }).first();
          return row!.status === 'done';
        });
        return row!;
      })();
      expect(event.attempts).to.equal(2);
      expect(event.result.counts).to.deep.equal({ parsed: LISTINGS, valid: LISTINGS, invalid: 0 });
      expect(event.result.summary.inserted + event.result.summary.unchanged).to.equal(LISTINGS);
      expect(event.result.summary.unchanged).to.be.at.least(partial);
      const rows = await db('listings').select('listing_key');
      expect(rows).to.have.length(LISTINGS);
      expect(new Set(rows.map((r) => r.listing_key)).size).to.equal(LISTINGS);
      console.log(`      killed with ${partial} of ${LISTINGS} stored; the retry stored the rest`);
      for (const p of [web, worker]) p.child.kill('SIGTERM');
      await Promise.all([web.exited, worker.exited]);
    });
  }
});
