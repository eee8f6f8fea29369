import { expect } from 'chai';
import type { Db } from '../../db/knex.js';
import { chunkString } from '../../pipeline/decode.js';
import type { Issue } from '../../pipeline/types.js';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { ingestFeed } from '../../workers/ingest/ingest-feed.js';
import { resoRecord } from '../formats/documents.js';
import { AU_CONTEXT, feed, scratchDatabase } from '../helpers.js';
import { officeListing } from './client.js';

async function* chunks(text: string): AsyncGenerator<string> {
  yield* chunkString(text, 4096);
}

/**
 * A dry run reports what ingestion will do with the same feed (issue 61, real-feed defects): the
 * same records refused with the same issue codes, the same records flagged. Ingestion runs in this
 * process on a scratch schema; each feed goes to a database of its own, as a first load.
 */
describe('a dry run and ingestion agree (PostgreSQL)', function () {
  this.timeout(30_000);
  let db: Db;
  let drop: () => Promise<void>;
  before(async () => {
    ({ db, drop } = await scratchDatabase('dry_run_agrees'));
  });
  after(() => drop());

  /** [code, listingIndex, path] of each warning and error but the missing-text ones, in a stable order. */
  const flagged = (issues: Issue[]) =>
    issues
      .filter((i) => i.code !== 'missing_headline' && i.code !== 'missing_description')
      .map((i) => [i.code, i.listingIndex, i.path])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

  async function both(text: string, officeScope: string[], format: 'reaxml' | 'reso' = 'reaxml') {
    const dry = await validateFeed(text, AU_CONTEXT, { format });
    await db('listings').delete();
    const { result } = await ingestFeed(
      db,
      { ratio: 1, min: 0 },
      { feedId: '00000000-0000-4000-8000-000000000061', format, source: chunks(text), context: AU_CONTEXT, mode: 'incremental', officeScope },
    );
    return { dry, ingested: result };
  }

  it('refuses in a dry run, with the same issue code, a listing whose office id ingestion refuses', async () => {
    const { dry, ingested } = await both(feed(officeListing('AGENT B', 'L1'), officeListing('OFF1', 'L2')), ['OFF1']);
    expect(ingested.counts).to.deep.equal({ parsed: 2, valid: 1, invalid: 1 });
    expect(dry.counts).to.deep.equal(ingested.counts);
    expect(dry.ok).to.equal(false);
    expect(flagged(dry.issues)).to.deep.equal(flagged(ingested.issues));
    expect(flagged(dry.issues).map(([code]) => code)).to.deep.equal(['invalid_office_id']);
    // RESO's ListOfficeKey likewise.
    const reso = await both(JSON.stringify({ value: [resoRecord({ ListOfficeKey: 'AGENT B' }), resoRecord({ ListingKey: 'a2' })] }), ['OFF1'], 'reso');
    expect(reso.ingested.counts).to.deep.equal({ parsed: 2, valid: 1, invalid: 1 });
    expect(reso.dry.counts).to.deep.equal(reso.ingested.counts);
    expect(flagged(reso.dry.issues)).to.deep.equal(flagged(reso.ingested.issues));
    expect(flagged(reso.dry.issues).map(([code, , path]) => [code, path])).to.deep.equal([['invalid_office_id', '/value/0/ListOfficeKey']]);
  });

  it('flags the same copies of a repeated listing as duplicate_listing', async () => {
    const text = feed(
      officeListing('OFF2', 'DUP', { modTime: '2024-03-02-10:00:00', price: 1 }),
      officeListing('OFF2', 'DUP', { modTime: '2024-03-03-10:00:00', price: 2 }),
      officeListing('OFF2', 'OTHER'),
      officeListing('OFF2', 'DUP', { modTime: '2024-03-01-10:00:00', price: 3 }),
      officeListing('OFF2', 'DUP', { modTime: '2024-03-03-10:00:00', price: 4 }),
    );
    const { dry, ingested } = await both(text, ['OFF2']);
    expect(ingested.upserts.map((u) => u.action)).to.deep.equal(['inserted', 'updated', 'inserted', 'stale_ignored', 'updated']);
    expect(flagged(dry.issues)).to.deep.equal(flagged(ingested.issues));
    expect(flagged(dry.issues)).to.deep.equal([
      ['duplicate_listing', 1, '/propertyList/residential[2]'],
      ['duplicate_listing', 3, '/propertyList/residential[4]'],
      ['duplicate_listing', 4, '/propertyList/residential[5]'],
    ]);
    expect(dry.issues.map((i) => i.message)).to.deep.equal(ingested.issues.map((i) => i.message));
    // The dry run previews what ingestion stores: the last of the newest copies.
    expect(dry.listings.find((l) => l.uniqueId === 'DUP')?.price?.amount).to.equal(4);
  });
});
