import { type FeedStatus, feedEventStatus } from '../db/feed-events.js';
import type { Db } from '../db/knex.js';

const FINISHED: ReadonlySet<FeedStatus> = new Set(['done', 'failed', 'rejected']);

/**
 * Waits up to waitMs for a feed to finish, polling its status (10 ms at first, backing off to
 * 250 ms), which works the same whether the worker is this process or another machine. Returns
 * the last status seen; at once when `stop` aborts (the process is shutting down).
 */
export async function waitForFeed(db: Db, id: string, waitMs: number, stop?: AbortSignal): Promise<FeedStatus | null> {
  const deadline = Date.now() + waitMs;
  let delay = 10;
  for (;;) {
    const status = await feedEventStatus(db, id);
    if (status === null || FINISHED.has(status)) return status;
    const left = deadline - Date.now();
    if (left <= 0 || stop?.aborted) return status;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.min(delay, left));
      function done() {
        clearTimeout(timer);
        stop?.removeEventListener('abort', done);
        resolve();
      }
      stop?.addEventListener('abort', done, { once: true });
    });
    if (stop?.aborted) return status;
    delay = Math.min(delay * 2, 250);
  }
}
