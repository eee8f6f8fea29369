import { expect } from 'chai';
import { InProcessQueue, PROMPT_START_PLACES } from '../../workers/in-process-queue.js';

/** A queue of one job at a time whose jobs finish when the test lets them (finish), or at once after finishAll. */
function heldQueue() {
  const release = new Map<string, () => void>();
  let open = false;
  const queue = new InProcessQueue(
    (id) =>
      new Promise<void>((resolve) => {
        if (open) resolve();
        else release.set(id, resolve);
      }),
    { attempts: 1, backoffMs: 10, concurrency: 1, onGiveUp: () => undefined, onError: () => undefined },
  );
  const finish = (id: string) => release.get(id)?.();
  const finishAll = () => {
    open = true;
    for (const done of release.values()) done();
  };
  return { queue, finish, finishAll };
}

describe('The in-process queue tells a waiting push whether its job started (startedWithin)', () => {
  it('says started for a running job and for one it does not hold, and when a waiting job starts', async () => {
    const { queue, finish } = heldQueue();
    await queue.add('a');
    await queue.add('b');
    expect(await queue.startedWithin('a', 60_000)).to.equal(true);
    expect(await queue.startedWithin('unknown', 60_000)).to.equal(true);
    const b = queue.startedWithin('b', 60_000);
    finish('a');
    expect(await b).to.equal(true);
    finish('b');
    await queue.close();
  });

  it('says not started at once for a job with more than PROMPT_START_PLACES jobs ahead, and when stopped', async () => {
    const { queue, finishAll } = heldQueue();
    const ids = Array.from({ length: PROMPT_START_PLACES + 3 }, (_, i) => `job-${i}`);
    for (const id of ids) await queue.add(id);
    // job-0 runs; job-1 … wait. The last has PROMPT_START_PLACES + 1 waiting ahead of it.
    expect(await queue.startedWithin(ids.at(-1)!, 600_000)).to.equal(false);
    const stop = new AbortController();
    const second = queue.startedWithin('job-1', 600_000, stop.signal);
    stop.abort();
    expect(await second).to.equal(false);
    finishAll();
    await queue.drained();
    await queue.close();
  });
});
