import { expect } from 'chai';
import { createReadShares } from '../../db/read-shares.js';
import { HttpError } from '../../lib/errors.js';

/** A query that runs until released: what it holds is held until then. */
function heldQuery() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started = false;
  return {
    run: async () => {
      started = true;
      await done;
      return 'done';
    },
    release,
    get started() {
      return started;
    },
  };
}

/** Waits until the queries named have started (the shares hand out in microtasks), at most 5 s. */
async function started(...queries: { started: boolean }[]): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!queries.every((q) => q.started)) {
    if (Date.now() > deadline) throw new Error('the queries did not start');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('Shares of a read pool (db/read-shares.ts)', () => {
  it('gives a costly family 2 of 5 connections, the costly families 3, and never holds back a cheap read', async () => {
    const shares = createReadShares(5);
    const queries = Array.from({ length: 4 }, heldQuery);
    const [k1, k2, k3, map] = queries;
    const runs = [
      shares.run('keyword', k1.run),
      shares.run('keyword', k2.run),
      shares.run('keyword', k3.run).catch((err: unknown) => err),
      shares.run('map', map.run),
    ];
    const facets = heldQuery();
    const facetRun = shares.run('facets', facets.run).catch((err: unknown) => err);
    await started(k1, k2, map);
    expect([k1.started, k2.started, k3.started, map.started, facets.started]).to.deep.equal([true, true, false, true, false]);
    // A cheap read runs at once, whatever the costly ones hold.
    expect(await shares.run(null, async () => 'cheap')).to.equal('cheap');

    // The third keyword query and the facet count wait 2 s for a share, then are a 503 with Retry-After.
    for (const refused of [await runs[2], await facetRun]) {
      expect(refused).to.be.instanceOf(HttpError);
      expect((refused as HttpError).status).to.equal(503);
      expect((refused as HttpError).headers).to.deep.equal({ 'retry-after': '2' });
    }
    expect(((await runs[2]) as HttpError).message).to.equal('too many keyword searches are running at once; try again in a few seconds');
    expect(((await facetRun) as HttpError).message).to.match(/^too many costly searches/);
    expect(k3.started).to.equal(false);

    // Once one is done, the next in line runs.
    const next = heldQuery();
    const nextRun = shares.run('facets', next.run);
    k1.release();
    await started(next);
    for (const q of [k2, map, next]) q.release();
    expect(await Promise.all([runs[0], runs[1], runs[3], nextRun])).to.deep.equal(['done', 'done', 'done', 'done']);
  });

  it('with one connection (the embedded database) has costly queries take turns rather than refuse them', async () => {
    const shares = createReadShares(1);
    const first = heldQuery();
    const second = heldQuery();
    const runs = [shares.run('keyword', first.run), shares.run('facets', second.run)];
    await started(first);
    expect([first.started, second.started]).to.deep.equal([true, false]);
    expect(await shares.run(null, async () => 'cheap')).to.equal('cheap');
    first.release();
    await started(second);
    second.release();
    expect(await Promise.all(runs)).to.deep.equal(['done', 'done']);
  });
});
