import { expect } from 'chai';
import { canCopy, copyField, rowPieces } from '../../db/copy-from-stdin.js';
import type { Db } from '../../db/knex.js';
import { insertListingRows, type ListingRow } from '../../db/listings-store.js';
import { scratchDatabase } from '../helpers.js';
import { scratchEmbeddedDatabase } from '../service.js';

/** Text that COPY's text format would misread unless every special character is escaped. */
const AWKWARD = 'tab\there, new\nline, return\r, back\\slash, \\N, \\., "quotes", ünïcödé, 🏠';

function row(uniqueId: string, overrides: Partial<ListingRow> = {}): ListingRow {
  const data = {
    listingKey: `OFF1/${uniqueId}`,
    office: 'OFF1',
    uniqueId,
    headline: AWKWARD,
    description: { 'en-AU': `${AWKWARD}\n\nSecond paragraph \\ with a backslash` },
    status: 'active',
  };
  return {
    listing_key: `OFF1/${uniqueId}`,
    office: 'OFF1',
    unique_id: uniqueId,
    format: 'reaxml',
    status: 'active',
    mod_time: '2026-11-20T10:00:00.123Z',
    content_hash: `hash-${uniqueId}`,
    hidden: false,
    data: JSON.stringify(data),
    public_patch: JSON.stringify({ displayPrice: `${AWKWARD} $1` }),
    source_hash: uniqueId.endsWith('0') ? null : `source-${uniqueId}`,
    ...overrides,
  };
}

async function stored(db: Db) {
  const { rows } = await db.raw(
    `SELECT listing_key, office, unique_id, format, status, mod_time, content_hash, hidden, data::text AS data, public_patch::text AS public_patch,
            source_hash, locality_key, search_tsv IS NOT NULL AS searchable
       FROM listings ORDER BY listing_key`,
  );
  return rows as Record<string, unknown>[];
}

describe('COPY text fields', () => {
  it('escapes backslash, tab, line feed and carriage return, writes null as \\N and booleans as t/f', () => {
    expect(copyField('a\\b\tc\nd\re')).to.equal('a\\\\b\\tc\\nd\\re');
    expect(copyField('\\.')).to.equal('\\\\.');
    expect(copyField('\\N')).to.equal('\\\\N');
    expect(copyField(null)).to.equal('\\N');
    expect(copyField(true)).to.equal('t');
    expect(copyField(false)).to.equal('f');
    const plain = 'nothing to escape';
    expect(copyField(plain)).to.equal(plain);
  });

  it('refuses a row without a value for a copied column (an INSERT would have written its default)', () => {
    const rows = [{ a: 'x', b: undefined as unknown as string }];
    expect(() => [...rowPieces(rows, ['a', 'b'])]).to.throw(TypeError, 'a row to copy has no value for b');
  });
});

describe('inserting new listing rows', () => {
  describe('on PostgreSQL (COPY)', () => {
    let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
    before(async () => {
      scratch = await scratchDatabase('insert_rows');
    });
    after(async () => scratch.drop());
    beforeEach(async () => scratch.db('listings').delete());

    it('copies rows through the pool, not inside a transaction', async () => {
      expect(canCopy(scratch.db)).to.equal(true);
      await scratch.db.transaction(async (trx) => expect(canCopy(trx)).to.equal(false));
    });

    it('stores every column as the multi-row INSERT does, special characters and nulls included', async () => {
      const rows = Array.from({ length: 1200 }, (_, i) => row(`L${i}`));
      const inserted = await insertListingRows(scratch.db, rows);
      expect([...inserted].sort()).to.deep.equal(rows.map((r) => r.listing_key).sort());
      const copied = await stored(scratch.db);

      // The same rows written by the statement used inside transactions and on PGlite.
      await scratch.db('listings').delete();
      await scratch.db.transaction((trx) => insertListingRows(trx, rows));
      const insertedBySql = await stored(scratch.db);
      expect(copied).to.have.length(1200);
      expect(copied).to.deep.equal(insertedBySql);

      const first = copied.find((r) => r.listing_key === 'OFF1/L1')!;
      expect(JSON.parse(first.data as string).headline).to.equal(AWKWARD);
      expect(JSON.parse(first.public_patch as string).displayPrice).to.equal(`${AWKWARD} $1`);
      expect((first.mod_time as Date).toISOString()).to.equal('2026-11-20T10:00:00.123Z');
      expect(copied.find((r) => r.listing_key === 'OFF1/L10')!.source_hash).to.equal(null);
      expect(first.searchable).to.equal(true);
    });

    it('inserts a batch of a few rows (a push) with one statement, not a COPY of two round trips', async () => {
      const statements: string[] = [];
      const record = (q: { sql: string }) => statements.push(q.sql);
      scratch.db.on('query', record);
      try {
        expect([...(await insertListingRows(scratch.db, [row('P1'), row('P2')]))].sort()).to.deep.equal(['OFF1/P1', 'OFF1/P2']);
      } finally {
        scratch.db.off('query', record);
      }
      expect(statements).to.have.length(1);
      expect(statements[0]).to.match(/^insert into "listings"/);
    });

    it('leaves a key stored meanwhile as it is and inserts the rest', async () => {
      await insertListingRows(scratch.db, [row('L02', { content_hash: 'stored-first' })]);
      // Enough rows to be copied: the COPY fails on the stored key, and the rows go in by the INSERT that skips it.
      const batch = Array.from({ length: 30 }, (_, i) => row(`L${String(i).padStart(2, '0')}`, i === 2 ? { content_hash: 'second' } : {}));
      const inserted = await insertListingRows(scratch.db, batch);
      expect([...inserted].sort()).to.deep.equal(batch.map((r) => r.listing_key).filter((k) => k !== 'OFF1/L02'));
      const rows = await stored(scratch.db);
      expect(rows.find((r) => r.listing_key === 'OFF1/L02')!.content_hash).to.equal('stored-first');
      expect(rows.find((r) => r.listing_key === 'OFF1/L03')!.content_hash).to.equal('hash-L03');
      expect(rows).to.have.length(30);
    });

    it('throws any other failure and keeps nothing of the batch, and the pool goes on working', async () => {
      const bad = Array.from({ length: 30 }, (_, i) => row(`B${i}`, i === 15 ? { data: '{"not json' } : {}));
      let failure: unknown = null;
      await insertListingRows(scratch.db, bad).catch((err) => {
        failure = err;
      });
      expect(failure).to.be.an('error');
      expect((failure as { code?: string }).code).to.equal('22P02');
      expect(await stored(scratch.db)).to.deep.equal([]);
      // A row the COPY cannot write fails on this side, after earlier rows were sent: the COPY is abandoned.
      const many = Array.from({ length: 400 }, (_, i) => row(`N${i}`));
      many[399] = { ...many[399], public_patch: undefined as unknown as string };
      const refused = await insertListingRows(scratch.db, many).then(
        () => null,
        (err: Error) => err,
      );
      expect(refused).to.be.instanceOf(TypeError);
      expect(await stored(scratch.db)).to.deep.equal([]);
      const pool = (scratch.db.client as { pool: { max: number } }).pool;
      for (let i = 0; i < pool.max + 2; i += 1) expect([...(await insertListingRows(scratch.db, [row(`M${i}`)]))]).to.deep.equal([`OFF1/M${i}`]);
    });
  });

  describe('on PGlite (INSERT)', () => {
    let db: Db;
    let drop: () => Promise<void>;
    before(async () => {
      ({ db, drop } = await scratchEmbeddedDatabase());
    });
    after(() => drop());

    it('inserts with the statement that skips stored keys', async () => {
      expect(canCopy(db)).to.equal(false);
      await insertListingRows(db, [row('L2', { content_hash: 'stored-first' })]);
      const inserted = await insertListingRows(db, [row('L1'), row('L2'), row('L3')]);
      expect([...inserted].sort()).to.deep.equal(['OFF1/L1', 'OFF1/L3']);
      const first = (await stored(db)).find((r) => r.listing_key === 'OFF1/L1')!;
      expect(JSON.parse(first.data as string).headline).to.equal(AWKWARD);
    });
  });
});
