import { expect } from 'chai';
import pg from 'pg';
import { copyField, fieldPieces, PIECE_CHARS } from '../../db/copy-from-stdin.js';
import { FEED_DONE_CHANNEL } from '../../db/feed-done.js';
import { finishFeedEvent, getFeedEvent, startFeedEvent } from '../../db/feed-events.js';
import type { Db } from '../../db/knex.js';
import { eventually, postgresUrl, scratchDatabase, storeTestFeedEvent } from '../helpers.js';
import { scratchEmbeddedDatabase } from '../service.js';

/** A result as a large feed's: an upsert and a warning per listing, with text COPY must escape and characters outside the BMP. */
function largeResult(listings: number): Record<string, unknown> {
  const upserts = Array.from({ length: listings }, (_, i) => ({ listingKey: `OFF1/L${i}`, action: 'inserted' }));
  const issues = Array.from({ length: listings }, (_, i) => ({
    level: 'warning',
    code: 'nonstandard_date',
    message: `listing ${i}: "quoted", tab\there, line\nbreak, back\\slash \\N \\. and a house 🏠 ${'é'.repeat(i % 7)}`,
    listingIndex: i,
    uniqueId: `L${i}`,
    path: `/propertyList/residential[${i + 1}]`,
  }));
  return { ok: true, counts: { parsed: listings, valid: listings, invalid: 0 }, summary: { inserted: listings }, upserts, statusChanges: [], issues };
}

describe('a field given in parts, for COPY', () => {
  it('joins the parts into pieces of at least PIECE_CHARS, never cutting one, escapes each and ends the row', () => {
    const parts = Array.from({ length: 10_000 }, (_, i) => `part ${i} \\ tab\t 🏠,`);
    const pieces = [...fieldPieces(parts)];
    expect(pieces.length).to.be.greaterThan(1);
    for (const piece of pieces.slice(0, -1)) expect(piece.length).to.be.at.least(PIECE_CHARS);
    expect(pieces.at(-1)!.endsWith('\n')).to.equal(true);
    for (const piece of pieces) expect(Buffer.from(piece, 'utf8').toString('utf8')).to.equal(piece); // no lone surrogate
    expect(pieces.join('')).to.equal(`${copyField(parts.join(''))}\n`);
    expect([...fieldPieces([])]).to.deep.equal(['\n']);
  });
});

const backends: { name: string; open(): Promise<{ db: Db; close(): Promise<void> }> }[] = [
  {
    name: 'PostgreSQL (a large result goes by COPY)',
    async open() {
      const scratch = await scratchDatabase('feed_result');
      return { db: scratch.db, close: scratch.drop };
    },
  },
  {
    name: 'PGlite',
    async open() {
      const scratch = await scratchEmbeddedDatabase();
      return { db: scratch.db, close: scratch.drop };
    },
  },
];

for (const backend of backends) {
  describe(`a feed's result on ${backend.name}`, () => {
    let db: Db;
    let close: () => Promise<void>;
    before(async () => ({ db, close } = await backend.open()));
    after(async () => close());

    for (const listings of [3, 12_000]) {
      it(`stores a result of ${listings} listings exactly, with its outcome and the offices marked stale`, async () => {
        const event = await storeTestFeedEvent(db, ['OFF1'], [Buffer.from('<propertyList/>')]);
        await startFeedEvent(db, event.id);
        const result = largeResult(listings);
        if (listings > 3) expect(JSON.stringify(result).length).to.be.greaterThan(1 << 20);
        const listener = db.embedded ? null : new pg.Client({ connectionString: postgresUrl });
        const heard: string[] = [];
        if (listener) {
          await listener.connect();
          listener.on('notification', (m) => heard.push(m.payload ?? ''));
          await listener.query(`LISTEN ${FEED_DONE_CHANNEL}`);
        }
        try {
          await db('directory_stale').delete();
          const { outcome } = await finishFeedEvent(db, event.id, result, ['OFF1', 'OFF2']);
          expect(outcome).to.equal('ok');
          const stored = await getFeedEvent(db, event.id);
          expect(stored!.status).to.equal('done');
          expect(stored!.result).to.deep.equal(result);
          expect((await db('directory_stale').pluck('office')).sort()).to.deep.equal(['OFF1', 'OFF2']);
          if (listener) {
            await eventually('the announcement', () => heard.some((p) => p.includes(event.id)));
            // A long result is announced by the feed's id alone; a short one carries it.
            const payload = heard.find((p) => p.includes(event.id));
            if (listings > 3) expect(payload).to.equal(event.id);
            else expect(JSON.parse(payload!).result).to.deep.equal(result);
          }
        } finally {
          await listener?.end();
        }
      });
    }

    it('stores two large results in a row (the table a result is copied to goes with its transaction)', async () => {
      for (let i = 0; i < 2; i += 1) {
        const event = await storeTestFeedEvent(db, ['OFF1'], [Buffer.from('<propertyList/>')]);
        await startFeedEvent(db, event.id);
        const result = largeResult(12_000);
        await finishFeedEvent(db, event.id, result);
        expect((await getFeedEvent(db, event.id))!.result).to.deep.equal(result);
      }
    });
  });
}
