import { expect } from 'chai';
import { eventually, feed } from '../helpers.js';
import { useTestService } from '../service.js';
import { activeKey, officeListing, pushFeed } from './client.js';

/** Listings in the feed being ingested while the burst arrives: long enough to ingest that the burst's feeds cannot start meanwhile. */
const LARGE = 3000;
const BURST = 40;
const KEYS = 10;

describe('A burst of pushes at the embedded default (PGlite, in-process queue)', function () {
  this.timeout(600_000);
  const rig = useTestService({ database: 'pglite', env: { FEED_UPLOADS_PER_KEY: '100', FEED_UPLOADS_TOTAL: '1000' } });

  it('answers every push while the queue is behind (202 for a feed that cannot start yet), then ingests every one', async () => {
    const { svc } = rig;
    const keys = await Promise.all(Array.from({ length: KEYS }, (_, k) => activeKey(svc.db, [`B${k}`])));
    const large = pushFeed(svc.url, keys[0], feed(...Array.from({ length: LARGE }, (_, i) => officeListing('B0', `large-${i}`))));
    // Started (or, were the thread to ingest it without a pause for anything else, already done).
    const started = await eventually(
      'the large feed started',
      async (): Promise<{ id: string } | undefined> => svc.db('feed_events').whereIn('status', ['running', 'done']).first('id'),
      120_000,
    );

    const answers = await Promise.all(
      Array.from({ length: BURST }, async (_, i) => {
        const res = await pushFeed(svc.url, keys[i % KEYS], feed(officeListing(`B${i % KEYS}`, `small-${i}`)));
        return { status: res.status, body: (await res.json()) as { feedId: string; status?: string; statusUrl?: string } };
      }),
    );
    // Read once every push is answered: the large feed, which the burst's feeds queue behind, is still being ingested.
    const largeNow = await svc.db('feed_events').where({ id: started.id }).first('status');
    expect(answers.filter((a) => a.status !== 202).map((a) => a.status)).to.deep.equal([]);
    expect(largeNow.status).to.equal('running');
    for (const { body } of answers) expect(body).to.deep.include({ status: 'queued', statusUrl: `/v1/feeds/${body.feedId}` });

    expect([200, 202]).to.include((await large).status);
    await eventually('every listing stored', async () => Number((await svc.db('listings').count({ n: '*' }).first())?.n) === LARGE + BURST, 300_000);
    const statuses = await Promise.all(
      answers.map(async ({ body }, i) => {
        const res = await fetch(`${svc.url}${body.statusUrl}`, { headers: { authorization: `Bearer ${keys[i % KEYS]}` } });
        return ((await res.json()) as { status: string; result: { summary: { inserted: number } } }).result?.summary.inserted;
      }),
    );
    expect(statuses).to.deep.equal(answers.map(() => 1));
  });
});
