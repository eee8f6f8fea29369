import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createFeedKey } from '../../db/feed-keys.js';
import type { Db } from '../../db/knex.js';
import { type ClaimedDelivery, recordDelivered, recordFailed } from '../../db/webhook-lanes.js';
import { scratchEmbeddedDatabase } from '../service.js';

describe("a webhook attempt's record and its endpoint's lane (db/webhook-lanes.ts)", () => {
  let db: Db;
  let drop: () => Promise<void>;
  let delivery: ClaimedDelivery;
  before(async () => {
    ({ db, drop } = await scratchEmbeddedDatabase());
    const { key } = await createFeedKey(db, { clientName: 'Lanes', alertEmail: 'a@agency.example', officeIds: ['LANE1'], status: 'active' });
    const endpointId = randomUUID();
    await db('webhook_endpoints').insert({
      id: endpointId,
      key_id: key.id,
      url: 'https://receiver.example/h',
      events: ['feed.completed'],
      secret: 's',
      status: 'active',
    });
    delivery = { id: `d-${randomUUID()}`, endpoint_id: endpointId, feed_id: null, payload: '{}', attempts: 0 };
    await db('webhook_deliveries').insert({ id: delivery.id, endpoint_id: endpointId, event_type: 'feed.completed', payload: '{}', status: 'pending' });
  });
  after(() => drop());

  /** The transaction each update of the two tables ran in, as `recording` makes them. */
  async function transactionsOf(recording: () => Promise<void>): Promise<(string | undefined)[]> {
    const seen: (string | undefined)[] = [];
    const record = (q: { sql: string; __knexTxId?: string }) => {
      if (/^update "webhook_(deliveries|endpoints)"/.test(q.sql)) seen.push(q.__knexTxId);
    };
    db.on('query', record);
    try {
      await recording();
    } finally {
      db.off('query', record);
    }
    return seen;
  }

  it('records a failed attempt and pauses the lane together, in one transaction', async () => {
    const tx = await transactionsOf(() => recordFailed(db, delivery, { status: 500, ms: 12, at: new Date(), error: 'answered 500' }, 5));
    expect(tx).to.have.length(2);
    expect(tx[0], 'a transaction').to.be.a('string');
    expect(tx[1]).to.equal(tx[0]);
    expect(await db('webhook_endpoints').where({ id: delivery.endpoint_id }).first()).to.include({ failures_in_row: 1 });
  });

  it('records an acknowledged attempt and clears the pause together, in one transaction', async () => {
    const tx = await transactionsOf(() => recordDelivered(db, { ...delivery, attempts: 1 }, { status: 200, ms: 8, at: new Date() }));
    expect(tx).to.have.length(2);
    expect(tx[0], 'a transaction').to.be.a('string');
    expect(tx[1]).to.equal(tx[0]);
    expect(await db('webhook_endpoints').where({ id: delivery.endpoint_id }).first()).to.include({ failures_in_row: 0, next_send_at: null });
  });
});
