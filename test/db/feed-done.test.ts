import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { FEED_DONE_CHANNEL, onFeedDone, startFeedDoneListener } from '../../db/feed-done.js';
import { postgresUrl, silentLogger } from '../helpers.js';

describe('feed_done: a web process hears that a feed finished in another process (PostgreSQL LISTEN/NOTIFY)', function () {
  this.timeout(20_000);

  it('passes a NOTIFY from another connection to the waiters of this process, and stops on close', async () => {
    const listener = startFeedDoneListener(postgresUrl, silentLogger);
    const other = new pg.Client({ connectionString: postgresUrl });
    await other.connect();
    try {
      const feedId = randomUUID();
      const heard = new Promise<void>((resolve) => onFeedDone(feedId, () => resolve()));
      // The listener connects in the background: notify until it has heard (a notification sent before LISTEN is lost).
      let done = false;
      void heard.then(() => {
        done = true;
      });
      for (let i = 0; i < 100 && !done; i += 1) {
        await other.query('SELECT pg_notify($1, $2)', [FEED_DONE_CHANNEL, feedId]);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(done, 'the waiter heard the notification').to.equal(true);

      // An announcement that carries how the feed ended hands it to the waiter; one that is not
      // an announcement (JSON without an id, or not JSON) wakes nobody.
      const carried = randomUUID();
      const end = new Promise((resolve) => onFeedDone(carried, resolve));
      const stray = new Promise((resolve) => onFeedDone('{"status":"done"', () => resolve('woken')));
      await other.query('SELECT pg_notify($1, $2)', [FEED_DONE_CHANNEL, '{"status":"done"']);
      await other.query('SELECT pg_notify($1, $2)', [FEED_DONE_CHANNEL, JSON.stringify({ status: 'done', result: {} })]);
      await other.query('SELECT pg_notify($1, $2)', [FEED_DONE_CHANNEL, JSON.stringify({ id: carried, status: 'done', result: { ok: true }, error: null })]);
      expect(await end).to.deep.equal({ status: 'done', result: { ok: true }, error: null });
      expect(await Promise.race([stray, new Promise((r) => setTimeout(() => r('not woken'), 200))])).to.equal('not woken');
    } finally {
      await listener.close();
      await other.end();
    }
  });
});
