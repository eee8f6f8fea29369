import { expect } from 'chai';
import type { Db } from '../../db/knex.js';
import { asBackgroundWork, asRequestWork } from '../../lib/work-kind.js';
import { scratchEmbeddedDatabase } from '../service.js';

describe('Turns on the embedded database (db/query-turns.ts)', function () {
  this.timeout(120_000);
  let scratch: Awaited<ReturnType<typeof scratchEmbeddedDatabase>>;
  let db: Db;
  before(async () => {
    scratch = await scratchEmbeddedDatabase();
    db = scratch.db;
    await db.raw('SELECT 1');
  });
  after(() => scratch.drop());

  it("runs a request's statement before the background work's already waiting", async () => {
    const done: string[] = [];
    const background = Array.from({ length: 20 }, (_, i) => asBackgroundWork(() => db.raw('SELECT pg_sleep(0.002)').then(() => done.push(`background ${i}`))));
    const request = asRequestWork(() => db.raw('SELECT 1').then(() => done.push('request')));
    await Promise.all([...background, request]);
    // At most the statement that had already taken its turn went first.
    expect(done.indexOf('request')).to.be.at.most(1);
  });

  it('lets the event loop run between statements: a timer set before a run of them fires before its end', async () => {
    const done: string[] = [];
    let timerFiredAfter = -1;
    const timer = new Promise<void>((resolve) =>
      setTimeout(() => {
        timerFiredAfter = done.length;
        resolve();
      }, 0),
    );
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => asBackgroundWork(() => db.raw('SELECT pg_sleep(0.005)').then(() => done.push(`statement ${i}`)))),
      timer,
    ]);
    expect(timerFiredAfter).to.be.within(0, 19);
  });

  it('keeps a transaction on its turn to its end: what waits meanwhile goes after it, the request first', async () => {
    const done: string[] = [];
    const waiting: Promise<unknown>[] = [];
    await asBackgroundWork(() =>
      db.transaction(async (t) => {
        await t.raw('SELECT 1');
        waiting.push(asBackgroundWork(() => db.raw('SELECT 1').then(() => done.push('background'))));
        waiting.push(asRequestWork(() => db.raw('SELECT 1').then(() => done.push('request'))));
        await t.raw('SELECT pg_sleep(0.01)');
        done.push('transaction');
      }),
    );
    await Promise.all(waiting);
    expect(done).to.deep.equal(['transaction', 'request', 'background']);
  });
});
