import { expect } from 'chai';
import { WorkerPool } from '../../lib/worker-pool.js';

type Task = { n?: number; fail?: string; exit?: boolean };
type Result = { doubled: number; thread: number };

describe('WorkerPool', () => {
  let pool: WorkerPool<Task, Result>;
  beforeEach(() => {
    pool = new WorkerPool(new URL('./pool-worker.js', import.meta.url), 2);
  });
  afterEach(() => pool.close());

  it('answers every task, spread over its threads', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, n) => pool.run({ n })));
    expect(results.map((r) => r.doubled)).to.deep.equal(Array.from({ length: 20 }, (_, n) => n * 2));
    expect(new Set(results.map((r) => r.thread)).size).to.equal(2);
  });

  it("fails a task with its error's message and goes on", async () => {
    const failed = await pool.run({ fail: 'no such listing' }).catch((err: Error) => err);
    expect(failed).to.be.instanceOf(Error);
    expect((failed as Error).message).to.equal('no such listing');
    expect((await pool.run({ n: 4 })).doubled).to.equal(8);
  });

  it('fails the tasks a dying thread held and starts another for the next', async () => {
    const dying = pool.run({ exit: true }).catch((err: Error) => err);
    expect(((await dying) as Error).message).to.match(/worker thread exited \(code 3\)/);
    const after = await Promise.all([pool.run({ n: 1 }), pool.run({ n: 2 }), pool.run({ n: 3 })]);
    expect(after.map((r) => r.doubled)).to.deep.equal([2, 4, 6]);
  });

  it('refuses tasks once closed', async () => {
    await pool.run({ n: 1 });
    await pool.close();
    const refused = await pool.run({ n: 1 }).catch((err: Error) => err);
    expect((refused as Error).message).to.match(/closed/);
  });
});
