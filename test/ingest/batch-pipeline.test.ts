import { expect } from 'chai';
import { BatchPipeline } from '../../workers/ingest/batch-pipeline.js';

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

/** A pipeline over numbered batches that logs each step, with a write that can be made slow or to fail. */
function logged(options: { slowWrite?: number; failWrite?: number } = {}) {
  const log: string[] = [];
  let inFlight = 0;
  let most = 0;
  const pipeline = new BatchPipeline<number, number, number>({
    decide: async ([n]) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      log.push(`decide ${n}`);
      await tick();
      return n;
    },
    write: async (n) => {
      log.push(`write ${n}`);
      await tick(n === options.slowWrite ? 40 : 5);
      if (n === options.failWrite) throw new Error(`write ${n} failed`);
      return n * 10;
    },
    record: async ([n], outcome) => {
      log.push(`record ${n}:${outcome}`);
      inFlight -= 1;
    },
  });
  return { pipeline, log, most: () => most };
}

describe('BatchPipeline: batches written in order, two in flight', () => {
  it('writes and records every batch in feed order, deciding the next while one is written', async () => {
    const { pipeline, log, most } = logged({ slowWrite: 1 });
    for (const n of [1, 2, 3, 4]) await pipeline.add([n]);
    await pipeline.drain();
    const order = (step: string) => log.filter((l) => l.startsWith(step));
    expect(order('write')).to.deep.equal(['write 1', 'write 2', 'write 3', 'write 4']);
    expect(order('record')).to.deep.equal(['record 1:10', 'record 2:20', 'record 3:30', 'record 4:40']);
    expect(log.indexOf('decide 2'), 'batch 2 is decided while batch 1 is still being written').to.be.below(log.indexOf('record 1:10'));
    expect(most(), 'never more than two batches in flight').to.equal(2);
  });

  it('decides a batch marked afterEarlier only once every earlier batch is written', async () => {
    const { pipeline, log } = logged({ slowWrite: 1 });
    await pipeline.add([1]);
    await pipeline.add([2], { afterEarlier: true });
    await pipeline.drain();
    expect(log.indexOf('decide 2')).to.be.above(log.indexOf('record 1:10'));
  });

  it('surfaces a failed write at the next add or at drain, and starts no write after it', async () => {
    const { pipeline, log } = logged({ failWrite: 2 });
    await pipeline.add([1]);
    await pipeline.add([2]);
    let failure: unknown = null;
    try {
      await pipeline.add([3]);
      await pipeline.add([4]);
      await pipeline.drain();
    } catch (err) {
      failure = err;
    }
    expect((failure as Error)?.message).to.equal('write 2 failed');
    await pipeline.settle();
    expect(log.filter((l) => l.startsWith('write'))).to.deep.equal(['write 1', 'write 2']);
    expect(log).to.not.include('record 2:20');
  });
});
