import { feedEventStatus, type FeedStatus } from '../db/feed-events.js';
import type { Db } from '../db/knex.js';

const FINISHED: ReadonlySet<FeedStatus> = new Set(['done', 'failed', 'rejected']);

/**
 * Waits up to waitMs for a feed to finish, polling its status (10 ms at first, backing off to
 * 250 ms), which works the same whether the worker is this process or another machine.
 * Returns the last status seen.
 */
export async function waitForFeed(db: Db, id: string, waitMs: number): Promise<FeedStatus | null> {
  const deadline = Date.now() + waitMs;
  let delay = 10;
  for (;;) {
    const status = await feedEventStatus(db, id);
    if (status === null || FINISHED.has(status)) return status;
    const left = deadline - Date.now();
    if (left <= 0) return status;
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, left)));
    delay = Math.min(delay * 2, 250);
  }
}
