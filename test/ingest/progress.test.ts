import { expect } from 'chai';
import type { Db } from '../../db/knex.js';
import { configureReadThreads } from '../../pipeline/reaxml/read-threads.js';
import { processFeed } from '../../workers/ingest/process-feed.js';
import { feed, scratchDatabase, silentLogger, storeTestFeedEvent } from '../helpers.js';
import { officeListing } from './client.js';

describe("a running feed's progress (PostgreSQL)", function () {
  this.timeout(60_000);
  let db: Db;
  let drop: () => Promise<void>;
  before(async () => {
    configureReadThreads(0);
    ({ db, drop } = await scratchDatabase('progress'));
  });
  after(() => drop());

  it('is reported at most once a second while the feed is written, the first a second in, not after every batch, and the job ends with the final counts', async () => {
    const listings = 12000; // 24 batches of 500
    const xml = feed(...Array.from({ length: listings }, (_, i) => officeListing('OFF1', `P${i}`)));
    const event = await storeTestFeedEvent(db, ['OFF1'], [Buffer.from(xml)]);
    const reports: { at: number; progress: Record<string, number> }[] = [];
    const started = Date.now();
    const summary = await processFeed({ db, breaker: { ratio: 0.2, min: 5 }, logger: silentLogger }, event.id, {
      progress: async (progress) => {
        reports.push({ at: Date.now(), progress });
      },
    });
    const seconds = (Date.now() - started) / 1000;
    expect(summary).to.deep.include({ status: 'done', counts: { parsed: listings, valid: listings, invalid: 0 } });
    // Nothing in the first second, then at most one report a second, then the final counts.
    expect(reports.length, `${reports.length} reports in ${seconds} s`).to.be.at.most(Math.floor(seconds) + 1);
    expect(reports.length).to.be.below(24);
    for (let i = 0; i < reports.length - 1; i += 1) expect(reports[i].at - (i === 0 ? started : reports[i - 1].at)).to.be.at.least(900);
    expect(reports.at(-1)!.progress).to.deep.equal({ parsed: listings, applied: listings, invalid: 0 });
  });

  it('a feed done within its first second writes no progress: only the job gets the final counts', async () => {
    const event = await storeTestFeedEvent(db, ['OFF1'], [Buffer.from(feed(officeListing('OFF1', 'QUICK')))]);
    const reports: Record<string, number>[] = [];
    const writes: string[] = [];
    const watch = (q: { sql: string }) => {
      if (/update "feed_events" set "progress"/.test(q.sql)) writes.push(q.sql);
    };
    db.asyncCommit().on('query', watch);
    db.on('query', watch);
    try {
      await processFeed({ db, breaker: { ratio: 0.2, min: 5 }, logger: silentLogger }, event.id, {
        progress: async (progress) => {
          reports.push(progress);
        },
      });
    } finally {
      db.asyncCommit().off('query', watch);
      db.off('query', watch);
    }
    expect(writes).to.deep.equal([]);
    expect(reports).to.deep.equal([{ parsed: 1, applied: 1, invalid: 0 }]);
  });
});
