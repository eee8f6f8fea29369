import { type FeedEnd, onFeedDone } from '../db/feed-done.js';
import { type FeedEvent, type FeedStatus, getFeedEvent } from '../db/feed-events.js';
import type { Db } from '../db/knex.js';

/** A feed as a waiting request sees it: read from the event, or as its announcement carried it. */
export type FeedSeen = Pick<FeedEvent, 'status' | 'result' | 'error'> | FeedEnd;

const FINISHED: ReadonlySet<FeedStatus> = new Set(['done', 'failed', 'rejected']);
/** The longest wait between two looks at the feed's status when no announcement comes. */
const POLL_MAX_MS = 250;

/**
 * Waits up to waitMs for a feed to finish. It is told at once when the feed is announced done
 * (db/feed-done.ts: this process's emitter, which the PostgreSQL LISTEN connection feeds too), and
 * looks at the status itself now and then (10 ms at first, backing off to 250 ms) in case an
 * announcement was missed. Works the same whether the worker is this process or another machine.
 * Returns the feed as last seen (null: no such feed), finished or not; at once when `stop` aborts
 * (the process is shutting down). A finished feed comes with its result: from the announcement
 * when it carries it (most feeds), else from the event read whole, so nothing is read twice.
 */
export async function waitForFeed(db: Db, id: string, waitMs: number, stop?: AbortSignal): Promise<FeedSeen | null> {
  const deadline = Date.now() + waitMs;
  let delay = 10;
  for (;;) {
    // Listening before looking, so an announcement between the two is not missed.
    let announced = false;
    let ended: FeedEnd | undefined;
    let wake: () => void = () => undefined;
    const stopListening = onFeedDone(id, (end) => {
      announced = true;
      ended = end;
      wake();
    });
    try {
      const event = await getFeedEvent(db, id);
      if (event === null || FINISHED.has(event.status)) return event;
      const left = deadline - Date.now();
      if (left <= 0 || stop?.aborted) return event;
      if (!announced) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.min(delay, left));
          function done() {
            clearTimeout(timer);
            stop?.removeEventListener('abort', done);
            resolve();
          }
          wake = done;
          stop?.addEventListener('abort', done, { once: true });
        });
      }
      if (ended) return ended;
      if (stop?.aborted) return event;
    } finally {
      stopListening();
    }
    delay = Math.min(delay * 2, POLL_MAX_MS);
  }
}
