import { type FeedEnd, onFeedDone } from '../db/feed-done.js';
import { type FeedEvent, type FeedStatus, getFeedEvent } from '../db/feed-events.js';
import type { Db } from '../db/knex.js';

/** A feed as a waiting request sees it: read from the event, or as its announcement carried it. */
export type FeedSeen = Pick<FeedEvent, 'status' | 'result' | 'error'> | FeedEnd;

const FINISHED: ReadonlySet<FeedStatus> = new Set(['done', 'failed', 'rejected']);
/**
 * The waits between two looks at the feed's status when no announcement comes: from the first,
 * doubling to the longest. The announcement is what answers; the looks are for one missed while
 * the PostgreSQL listening connection was being made again, so the first comes after most small
 * feeds are done (a look at 10 ms read the event of nearly every push on PostgreSQL). A test that
 * counts what a push reads sets them longer: on a busy machine a small feed may take longer than
 * the first, and the look is then right, but not what that test is about.
 */
export const FEED_WAIT_POLLS = { firstMs: 100, maxMs: 250 };

/**
 * A wait for one feed, listening for its announcement from the moment it is made (db/feed-done.ts:
 * this process's emitter, which the PostgreSQL LISTEN connection feeds too). Made before the feed
 * is queued, it cannot miss the announcement, and the feed's status at that moment is the one it
 * was stored with: wait() is then given it and does not read the event.
 */
export class FeedWait {
  private ended: FeedEnd | undefined;
  private announced = false;
  private wake: () => void = () => undefined;
  private readonly stopListening: () => void;

  constructor(private readonly id: string) {
    this.stopListening = onFeedDone(id, (end) => {
      this.announced = true;
      this.ended = end;
      this.wake();
    });
  }

  /**
   * Waits up to waitMs for the feed to finish. Told at once when it is announced done, it also looks
   * at the status itself now and then (after 100 ms, then every 250 ms) in case an
   * announcement was missed, so it works the same whether the worker is this process or another
   * machine. `known` is the feed as it was when this wait was made, if the caller knows it (it has
   * just stored the feed): the first look is then that, not a read. Returns the feed as last seen
   * (null: no such feed), finished or not; at once when `stop` aborts (the process is shutting
   * down). A finished feed comes with its result: from the announcement when it carries it (most
   * feeds), else from the event read whole, so nothing is read twice.
   */
  async wait(db: Db, waitMs: number, stop?: AbortSignal, known?: FeedSeen): Promise<FeedSeen | null> {
    const deadline = Date.now() + waitMs;
    let delay = FEED_WAIT_POLLS.firstMs;
    let seen: FeedSeen | undefined = known;
    for (;;) {
      if (this.ended) return this.ended;
      // An announcement without the result (a long one, or a failure) sends the wait to the event.
      const look = seen !== undefined && !this.announced ? seen : undefined;
      seen = undefined;
      this.announced = false;
      const event: FeedSeen | null = look ?? (await getFeedEvent(db, this.id));
      if (event === null || FINISHED.has(event.status)) return event;
      const left = deadline - Date.now();
      if (left <= 0 || stop?.aborted) return event;
      if (!this.announced) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.min(delay, left));
          function done() {
            clearTimeout(timer);
            stop?.removeEventListener('abort', done);
            resolve();
          }
          this.wake = done;
          stop?.addEventListener('abort', done, { once: true });
        });
        this.wake = () => undefined;
      }
      if (this.ended) return this.ended;
      if (stop?.aborted) return event;
      delay = Math.min(delay * 2, FEED_WAIT_POLLS.maxMs);
    }
  }

  /** Stops listening. */
  close(): void {
    this.stopListening();
  }
}
