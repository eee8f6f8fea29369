import { performance } from 'node:perf_hooks';
import { isRequestWork } from '../lib/work-kind.js';

/**
 * The longest a statement of background work waits while requests keep taking their turns first:
 * past it the background statement goes next, so a stream of requests slows ingestion but never
 * stops it.
 */
export const BACKGROUND_MAX_WAIT_MS = 1000;

interface Waiter {
  since: number;
  go(): void;
}

/**
 * Turns on the embedded database's one connection (PGlite runs every statement on this thread,
 * synchronously). Two rules, both for the requests this same thread must accept and answer:
 * - a turn starts in a turn of the event loop of its own (setImmediate), so between any two
 *   statements or transactions the loop polls: connections are accepted, request bodies read,
 *   timers run. Without it one statement's end started the next waiter's at once, in microtasks,
 *   and an ingest job's statements ran back to back while connections waited in the kernel.
 * - a request's statement goes before background work's (jobs, the change log, periodic tasks),
 *   unless that has waited BACKGROUND_MAX_WAIT_MS. A transaction holds its turn to its end.
 * A statement waits here as long as the turns before it take; knex's acquire timeout counts from
 * its own turn, when the connection is always free.
 */
export class QueryTurns {
  private held = false;
  private scheduled = false;
  private readonly requests: Waiter[] = [];
  private readonly background: Waiter[] = [];

  /** Resolves when it is the caller's turn; give() ends it. */
  take(): Promise<void> {
    return new Promise((go) => {
      (isRequestWork() ? this.requests : this.background).push({ since: performance.now(), go });
      this.schedule();
    });
  }

  /** The turn taken is over (its connection is back). */
  give(): void {
    this.held = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.held || this.scheduled || (this.requests.length === 0 && this.background.length === 0)) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.next();
    });
  }

  private next(): void {
    if (this.held) return;
    const oldest = this.background[0];
    const overdue = oldest !== undefined && performance.now() - oldest.since >= BACKGROUND_MAX_WAIT_MS;
    const waiter = (overdue ? undefined : this.requests.shift()) ?? this.background.shift() ?? this.requests.shift();
    if (!waiter) return;
    this.held = true;
    waiter.go();
  }
}
