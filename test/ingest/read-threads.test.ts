import { expect } from 'chai';
import type { Db } from '../../db/knex.js';
import { storedSourceHashes } from '../../db/listings-store.js';
import { chunkString } from '../../pipeline/decode.js';
import { closeReadThreads, configureReadThreads } from '../../pipeline/reaxml/read-threads.js';
import { type IngestionResult, ingestFeed } from '../../workers/ingest/ingest-feed.js';
import { AU_CONTEXT, feed, scratchDatabase } from '../helpers.js';
import { variedFeed, variedListing } from '../pipeline/varied-listings.js';

const OFFICES = Array.from({ length: 13 }, (_, i) => `OFF${i}`);

async function* chunks(text: string): AsyncGenerator<string> {
  yield* chunkString(text, 4096);
}

/**
 * Ingestion of feeds read on the reading threads, where listings whose sources the store has are
 * not mapped: the same results and the same stored rows as reading on one thread, across a first
 * load, an unchanged re-send, a re-send with changes, repeated keys (mapped after all) and a full
 * feed that archives and then restores.
 */
describe('ingestion with reading threads (PostgreSQL)', function () {
  this.timeout(120_000);
  const drops: (() => Promise<void>)[] = [];
  const database = async (name: string) => {
    const { db, drop } = await scratchDatabase(name);
    drops.push(drop);
    return db;
  };
  after(async () => {
    configureReadThreads(0);
    await closeReadThreads();
    for (const drop of drops) await drop();
  });

  const ingest = async (db: Db, text: string, mode: 'full' | 'incremental' = 'incremental') =>
    (
      await ingestFeed(
        db,
        { ratio: 1, min: 0 },
        { feedId: '00000000-0000-4000-8000-000000000000', format: 'reaxml', source: chunks(text), context: AU_CONTEXT, mode, officeScope: OFFICES },
      )
    ).result;
  const rows = (db: Db) => db('listings').orderBy('listing_key').select('listing_key', 'status', 'mod_time', 'content_hash', 'source_hash', 'data', 'hidden');
  /** What a result says, the issues in a stable order (threads hand on feed-level issues piece by piece). */
  const summary = (r: IngestionResult) => ({ ...r, issues: [...r.issues].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))) });

  it("gives the threads the fingerprints of the key's offices' stored listings, archived ones left out, and none past the limit", async () => {
    const db = await database('known');
    configureReadThreads(2, { splitFrom: 0, pieceSize: 2048 });
    await ingest(db, variedFeed(0, 60));
    await db('listings').where({ listing_key: 'OFF1/V-1' }).update({ status: 'archived' });
    const stored = await db('listings').whereNot('status', 'archived').whereIn('office', ['OFF1', 'OFF2']).pluck('source_hash');
    expect(stored.length).to.be.greaterThan(5);
    expect((await storedSourceHashes(db, ['OFF1', 'OFF2'])).sort()).to.deep.equal(stored.sort());
    expect(await storedSourceHashes(db, ['OFF1', 'OFF2'], stored.length)).to.have.length(stored.length);
    expect(await storedSourceHashes(db, ['OFF1', 'OFF2'], stored.length - 1)).to.deep.equal([]);
    expect(await storedSourceHashes(db, [])).to.deep.equal([]);
  });

  it('stores and answers exactly as reading on one thread does', async () => {
    const [here, threads] = [await database('one_reader'), await database('threads')];
    const listings = Array.from({ length: 300 }, (_, i) => variedListing(i));
    const changed = listings.map((l, i) => (i % 7 === 0 ? l.replace(/<headline>[^<]*<\/headline>/, '<headline>Changed</headline>') : l));
    const feeds: [string, 'full' | 'incremental'][] = [
      [feed(...listings), 'incremental'], // first load
      [feed(...listings), 'incremental'], // unchanged: every source known
      [feed(...changed), 'incremental'], // some changed
      [feed(...changed.slice(0, 50), ...changed.slice(0, 50)), 'incremental'], // every key twice: known sources mapped after all
      [feed(...changed.slice(100)), 'full'], // archives the first 100
      [variedFeed(0, 300), 'full'], // restores them
    ];
    for (const [n, [text, mode]] of feeds.entries()) {
      configureReadThreads(0);
      const one = await ingest(here, text, mode);
      configureReadThreads(2, { splitFrom: 0, pieceSize: 2048 });
      const split = await ingest(threads, text, mode);
      expect(summary(split), `feed ${n}`).to.deep.equal(summary(one));
      expect(await rows(threads), `feed ${n}: stored rows`).to.deep.equal(await rows(here));
    }
  });
});
