import { expect } from 'chai';
import type { Db } from '../../db/knex.js';
import { writeListings } from '../../db/listings-store.js';
import { applyListing } from '../../pipeline/apply-listing.js';
import type { FeedListing } from '../../pipeline/feed-listing.js';
import { readFeed } from '../../pipeline/read-feed.js';
import { configureReadThreads } from '../../pipeline/reaxml/read-threads.js';
import { storedRowOf } from '../../pipeline/stored-row.js';
import { decideBatch, writeBatch } from '../../workers/ingest/apply-batch.js';
import { AU_CONTEXT, feed, scratchDatabase } from '../helpers.js';
import { officeListing } from './client.js';

const ADDRESS =
  '<address><streetNumber>1</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address>';

async function listingsOf(text: string): Promise<FeedListing[]> {
  const listings: FeedListing[] = [];
  for await (const batch of readFeed('reaxml', text, AU_CONTEXT, [])) listings.push(...batch.listings);
  return listings;
}

describe('writing a batch while another feed writes the same listings (PostgreSQL)', function () {
  this.timeout(30_000);
  let db: Db;
  let drop: () => Promise<void>;
  before(async () => {
    configureReadThreads(0);
    ({ db, drop } = await scratchDatabase('apply_batch'));
  });
  after(() => drop());

  it('merges onto a listing another feed inserted after the batch was decided, even while that feed had not committed yet', async () => {
    // This feed's records, decided as new; K's has a newer modTime and price, and no headline or description (so the stored ones stay).
    const batch = await listingsOf(
      feed(
        `<residential modTime="2024-03-02-10:00:00" status="current"><agentID>OFF1</agentID><uniqueID>K</uniqueID><price>600000</price>${ADDRESS}</residential>`,
        officeListing('OFF1', 'L'),
      ),
    );
    const decided = await decideBatch(db, batch);
    // Another feed inserts the listing meanwhile, in a transaction still open when this batch writes.
    const [other] = await listingsOf(feed(officeListing('OFF1', 'K', { headline: 'From the other feed', price: 500000 })));
    const applied = applyListing(null, other);
    if (applied.action !== 'inserted') throw new Error(`the other feed's listing was ${applied.action}`);
    const trx = await db.transaction();
    await writeListings(trx, [{ row: storedRowOf(applied.listing), sourceHash: other.sourceHash() }]);
    const writing = writeBatch(db, decided);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the batch's write waits on the other feed's row
    await trx.commit();
    const outcome = await writing;

    expect(outcome.upserts).to.deep.equal([
      { listingKey: 'OFF1/K', action: 'updated' },
      { listingKey: 'OFF1/L', action: 'inserted' },
    ]);
    const row = await db('listings').where({ listing_key: 'OFF1/K' }).first('data');
    expect([row.data.headline, row.data.price?.amount, row.data.modTime]).to.deep.equal([{ 'en-AU': 'From the other feed' }, 600000, '2024-03-01T23:00:00Z']);
  });
});
