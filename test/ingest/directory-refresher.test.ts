import { expect } from 'chai';
import type { Db } from '../../db/knex.js';
import { DirectoryRefresher } from '../../workers/ingest/directory-refresher.js';
import { scratchDatabase, silentLogger } from '../helpers.js';

describe('the directory refresher: refreshes after feeds, coalescing what is asked while one runs (PostgreSQL)', function () {
  this.timeout(30_000);
  let db: Db;
  let drop: () => Promise<void>;
  before(async () => {
    ({ db, drop } = await scratchDatabase('dirrefresh'));
  });
  after(async () => {
    await drop();
  });

  it('refreshes the offices asked for while a refresh runs together in the next one, each once, and removes their stale marks', async () => {
    await db('directory_stale').insert(['A', 'B', 'C'].map((office) => ({ office })));
    const calls: string[][] = [];
    const record = (q: { sql: string; bindings: unknown[] }) => {
      if (q.sql.includes('run_after_locks')) calls.push([...(q.bindings[2] as string[])].sort());
    };
    db.on('query', record);
    try {
      const refresher = new DirectoryRefresher(db, silentLogger);
      refresher.request(['A']);
      // Asked while the first refresh runs: one more refresh, for B, A and C together.
      refresher.request(['B']);
      refresher.request(['A', 'C']);
      refresher.request([]);
      await refresher.idle();
      expect(calls).to.deep.equal([['A'], ['A', 'B', 'C']]);
      expect(Number((await db('directory_stale').count({ n: '*' }))[0].n)).to.equal(0);

      // Idle again: a new request starts a refresh of its own at once.
      refresher.request(['B']);
      await refresher.idle();
      expect(calls).to.have.length(3);
      expect(calls[2]).to.deep.equal(['B']);
    } finally {
      db.off('query', record);
    }
  });

  it("refreshes many offices at once (a large feed's) and removes only the marks written before that refresh began", async () => {
    const offices = Array.from({ length: 12 }, (_, i) => `M${i}`);
    // Several rounds: a mark written in the same millisecond as the refresh began must go too.
    for (let round = 0; round < 10; round += 1) {
      await db('directory_stale').insert(offices.map((office) => ({ office })));
      // A mark written while the refresh runs (its feed's listings may be newer than what the refresh read) stays.
      await db('directory_stale').insert({ office: 'M0', since: db.raw("clock_timestamp() + interval '1 hour'") });
      const refresher = new DirectoryRefresher(db, silentLogger);
      refresher.request(offices);
      await refresher.idle();
      const left = await db('directory_stale').whereIn('office', offices).select('office');
      expect(
        left.map((r) => r.office),
        `round ${round}`,
      ).to.deep.equal(['M0']);
      await db('directory_stale').where({ office: 'M0' }).delete();
    }
  });

  it("keeps going after a refresh fails, leaving that refresh's marks for the maintenance sweep", async () => {
    await db('directory_stale').insert({ office: 'D' });
    // run_after_locks gone for a moment: the refresh fails.
    await db.raw('ALTER FUNCTION run_after_locks(text[], text[], text[]) RENAME TO run_after_locks_away');
    const refresher = new DirectoryRefresher(db, silentLogger);
    try {
      refresher.request(['D']);
      await refresher.idle();
    } finally {
      await db.raw('ALTER FUNCTION run_after_locks_away(text[], text[], text[]) RENAME TO run_after_locks');
    }
    expect((await db('directory_stale').where({ office: 'D' })).length, 'the mark stays').to.equal(1);
    refresher.request(['D']);
    await refresher.idle();
    expect((await db('directory_stale').where({ office: 'D' })).length).to.equal(0);
  });
});
