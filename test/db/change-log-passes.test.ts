import { expect } from 'chai';
import { alertReasonOf } from '../../db/alert-matching.js';
import { type LoggedChange, type PassingReader, sequenceChangesPassing } from '../../db/change-log.js';
import type { Db } from '../../db/knex.js';
import { ALERT_READER } from '../../workers/alerts/match-alerts.js';
import { ChangeSequencer } from '../../workers/change-log/change-sequencer.js';
import { eventTypeOf, WEBHOOK_READER } from '../../workers/webhooks/change-webhooks.js';
import { eventually, scratchDatabase, scratchDatabasePair, silentLogger } from '../helpers.js';

/**
 * The change log's numbering lets its readers pass over rows they would make nothing of
 * (migration 20261128213000_change_log_passes): a 1-listing push's rows then cost each reader no
 * transaction of its own. What a reader acts on must never be passed over.
 */
describe('the change log numbering that lets its readers pass over rows (PostgreSQL)', function () {
  this.timeout(60_000);
  let db: Db;
  let other: Db;
  let drop: () => Promise<void>;
  before(async () => {
    ({ db, other, drop } = await scratchDatabasePair('passes'));
  });
  after(() => drop());

  const reader = (name: string, consumers: boolean, rows = 100): PassingReader => ({
    name,
    rows,
    kinds: ['Property:status_changed'],
    consumers: `SELECT ${consumers}`,
  });
  const log = (kind: string, n = 1) =>
    db('change_log').insert(
      Array.from({ length: n }, (_, i) => ({ resource: 'Property', record_key: `O/${kind}${i}`, office: 'O', kind, public_before: false, public_after: true })),
    );
  const cursorOf = async (name: string) => (await db('change_log_cursors').where({ name }).first('seq'))?.seq;
  const lastSeq = async () => Number((await db('change_log_head').first('last_seq')).last_seq);

  it('leaves a reader with no cursor yet to its own turn', async () => {
    await log('published');
    expect(await sequenceChangesPassing(db, [reader('new', false)])).to.deep.equal({ numbered: 1, turns: ['new'] });
    expect(await cursorOf('new')).to.equal(undefined);
  });

  it('moves the cursor past rows of no kind the reader acts on, whatever consumes them', async () => {
    await db('change_log_cursors').insert({ name: 'r1', seq: await lastSeq() });
    await log('published', 2);
    await log('changed');
    expect(await sequenceChangesPassing(db, [reader('r1', true)])).to.deep.equal({ numbered: 3, turns: [] });
    expect(Number(await cursorOf('r1'))).to.equal(await lastSeq());
  });

  it('gives the reader its turn for a row it acts on when something consumes it, and passes it when nothing does', async () => {
    await db('change_log_cursors').insert([
      { name: 'busy', seq: await lastSeq() },
      { name: 'idle', seq: await lastSeq() },
    ]);
    const before = await lastSeq();
    await log('published');
    await log('status_changed');
    expect(await sequenceChangesPassing(db, [reader('busy', true), reader('idle', false)])).to.deep.equal({ numbered: 2, turns: ['busy'] });
    expect(Number(await cursorOf('busy'))).to.equal(before);
    expect(Number(await cursorOf('idle'))).to.equal(await lastSeq());
  });

  it('gives the reader its turn when more rows follow its cursor than a turn reads', async () => {
    await db('change_log_cursors').insert({ name: 'many', seq: await lastSeq() });
    const before = await lastSeq();
    await log('published', 3);
    expect(await sequenceChangesPassing(db, [reader('many', false, 3)])).to.deep.equal({ numbered: 3, turns: ['many'] });
    expect(Number(await cursorOf('many'))).to.equal(before);
  });

  it('leaves a cursor held by a turn under way to that turn, without waiting for it', async () => {
    await db('change_log_cursors').insert({ name: 'held', seq: await lastSeq() });
    const before = await lastSeq();
    await log('published');
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    let held!: () => void;
    const holding = new Promise<void>((r) => {
      held = r;
    });
    const turn = other.transaction(async (trx) => {
      await trx('change_log_cursors').where({ name: 'held' }).forUpdate().first();
      held();
      await released;
    });
    await holding;
    try {
      expect(await sequenceChangesPassing(db, [reader('held', false)])).to.deep.equal({ numbered: 1, turns: ['held'] });
    } finally {
      release();
      await turn;
    }
    expect(Number(await cursorOf('held'))).to.equal(before);
  });
});

describe("a feed's end and the sequencer's runs (PostgreSQL)", function () {
  this.timeout(60_000);
  let db: Db;
  let drop: () => Promise<void>;
  let sequencer: ChangeSequencer;
  before(async () => {
    ({ db, drop } = await scratchDatabase('since'));
    sequencer = new ChangeSequencer(db, silentLogger);
    await sequencer.start();
    // The run the start begins is over before the test writes.
    await sequencer.run();
  });
  after(async () => {
    await sequencer.close();
    await drop();
  });

  it('makes no numbering of its own when the run its writes notified has begun after them, and one when none has', async () => {
    const writtenBefore = performance.now();
    // As the log's triggers do: the row, and a notification sent as it commits; the run that follows numbers the row.
    await db.transaction(async (trx) => {
      await trx('change_log').insert({ resource: 'Property', record_key: 'O/1', office: 'O', kind: 'published', public_before: false, public_after: true });
      await trx.raw("SELECT pg_notify('change_log', current_schema())");
    });
    await eventually('the row numbered', async () => (await db('change_log').whereNotNull('seq').first()) !== undefined);
    const numberings: string[] = [];
    const record = (q: { sql: string }) => {
      if (q.sql.includes('sequence_change_log')) numberings.push(q.sql);
    };
    db.on('query', record);
    try {
      await sequencer.runSince(writtenBefore);
      expect(numberings).to.have.length(0);
      await sequencer.runSince(performance.now());
      expect(numberings).to.have.length(1);
    } finally {
      db.off('query', record);
    }
  });
});

describe("the change log readers' kinds", () => {
  const resources = ['Property', 'Project', 'Member', 'Office'];
  const kinds = ['published', 'changed', 'removed', 'hidden', 'shown', 'withheld', 'archived', 'status_changed', 'price_changed'];
  const statuses = [null, 'active', 'under_offer', 'sold', 'leased', 'withdrawn', 'off_market', 'archived'];
  const prices = [null, { amount: 100, currency: 'AUD' }, { amount: 90, currency: 'AUD' }];
  /** Every row the log can hold, in the respects its readers look at. */
  function* rows(): Generator<LoggedChange> {
    for (const resource of resources)
      for (const kind of kinds)
        for (const oldStatus of statuses)
          for (const newStatus of statuses)
            for (const oldPrice of prices)
              for (const newPrice of prices)
                for (const publicBefore of [false, true]) {
                  const base = { seq: 1, resource, recordKey: 'O/1', office: 'O', kind, source: null, sequencedAt: new Date() };
                  yield { ...base, oldStatus, newStatus, oldPrice, newPrice, publicBefore, publicAfter: true };
                }
  }

  it('name every row the webhooks raise an event for', () => {
    for (const c of rows()) if (eventTypeOf(c)) expect(WEBHOOK_READER.kinds, JSON.stringify(c)).to.include(`${c.resource}:${c.kind}`);
  });

  it('name every row worth an alert', () => {
    for (const c of rows()) if (alertReasonOf(c)) expect(ALERT_READER.kinds, JSON.stringify(c)).to.include(`${c.resource}:${c.kind}`);
  });
});
