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

  it('is reported at most once a second while the feed is written, not after every batch, and the job ends with the final counts', async () => {
    const listings = 6000; // twelve batches of 500
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
    // The first batch's counts at once, then at most one report a second, then the final counts.
    expect(reports[0].progress).to.deep.include({ applied: 500, invalid: 0 });
    expect(reports.length, `${reports.length} reports in ${seconds} s`).to.be.at.most(Math.floor(seconds) + 2);
    expect(reports.length).to.be.below(12);
    for (let i = 1; i < reports.length - 1; i += 1) expect(reports[i].at - reports[i - 1].at).to.be.at.least(900);
    expect(reports.at(-1)!.progress).to.deep.equal({ parsed: listings, applied: listings, invalid: 0 });
  });
});
