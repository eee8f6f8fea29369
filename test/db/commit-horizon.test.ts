import { expect } from 'chai';
import { commitHorizon } from '../../db/commit-horizon.js';
import type { Db } from '../../db/knex.js';
import { scratchDatabasePair } from '../helpers.js';

/** The key change_stamp() gives a lock taken at `ms` (milliseconds since the epoch). */
const keyAt = (ms: number) => ((ms % 2 ** 32) - 2 ** 31) | 0;

describe('the commit horizon (PostgreSQL): the oldest stamping transaction still open', function () {
  this.timeout(60_000);
  let db: Db;
  let other: Db;
  let drop: () => Promise<void>;
  before(async () => {
    ({ db, other, drop } = await scratchDatabasePair('horizon'));
  });
  after(() => drop());

  /** Runs `check` while another session holds a stamp lock for the moment `ms`. */
  async function whileHeld(ms: number, check: () => Promise<void>): Promise<void> {
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    let held!: () => void;
    const holding = new Promise<void>((r) => {
      held = r;
    });
    const holder = other.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock_shared(hashtext(current_schema()), ?::int)', [keyAt(ms)]);
      held();
      await released;
    });
    await holding;
    try {
      await check();
    } finally {
      release();
      await holder;
    }
  }

  const serverNow = async () => Number((await db.raw('SELECT extract(epoch FROM now()) * 1000 AS ms')).rows[0].ms);

  it('is now when no stamping transaction is open', async () => {
    const before = await serverNow();
    const horizon = Date.parse(await commitHorizon(db));
    expect(horizon).to.be.at.least(before - 1);
    expect(horizon).to.be.at.most((await serverNow()) + 1);
  });

  it('is the moment an open stamping transaction took its lock', async () => {
    const at = Math.floor(await serverNow()) - 3_000;
    await whileHeld(at, async () => {
      expect(Date.parse(await commitHorizon(db))).to.equal(at);
    });
  });

  it('is not held back by a lock taken after the reading statement began (it was read as 49 days old)', async () => {
    const now = await serverNow();
    await whileHeld(Math.floor(now) + 5_000, async () => {
      const horizon = Date.parse(await commitHorizon(db));
      expect(horizon).to.be.at.least(now - 1);
    });
  });

  it('change_stamp() stamps after taking its lock, once per transaction', async () => {
    await db.transaction(async (trx) => {
      const first = (await trx.raw('SELECT change_stamp() AS t')).rows[0].t as Date;
      const again = (await trx.raw('SELECT change_stamp() AS t')).rows[0].t as Date;
      expect(again.getTime()).to.equal(first.getTime());
      const horizon = Date.parse(await commitHorizon(other));
      expect(horizon).to.be.at.most(first.getTime());
      expect(horizon).to.be.at.least(first.getTime() - 1);
    });
  });
});
