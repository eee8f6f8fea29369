import { asBackgroundWork } from '../lib/work-kind.js';
import type { JobContext, JobHandler, JobQueue, RetryPolicy } from './job-queue.js';

/**
 * A job with more jobs than this waiting ahead of it does not start promptly (startedWithin): eight
 * one-listing feeds take the embedded default about a third of a second.
 */
export const PROMPT_START_PLACES = 8;

/**
 * The embedded default's queue (no REDIS_URL): jobs run in this process on the very same
 * handlers the BullMQ workers call, with the same retry policy. Jobs live in memory; what makes
 * them durable is the database row each one points at, which the stale-event sweep re-queues
 * after a restart. A job runs as background work (lib/work-kind.ts) even when a request added it:
 * on the embedded database the requests' statements go first.
 */
export class InProcessQueue implements JobQueue {
  private readonly waiting: string[] = [];
  private readonly known = new Set<string>();
  private running = 0;
  private completed = 0;
  private failed = 0;
  private closed = false;
  private readonly idle: (() => void)[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Jobs running now, and who waits for a job to start (startedWithin). */
  private readonly runningIds = new Set<string>();
  private readonly starts = new Map<string, Set<() => void>>();

  constructor(
    private readonly handler: JobHandler,
    private readonly options: RetryPolicy & {
      concurrency: number;
      onGiveUp(id: string, err: Error): Promise<void> | void;
      onError(id: string, err: Error): void;
    },
  ) {}

  async add(id: string): Promise<void> {
    if (this.closed) throw new Error('queue is closed');
    if (this.known.has(id)) return;
    this.known.add(id);
    this.waiting.push(id);
    this.pump();
  }

  /** Nothing is kept of finished jobs here, so this is add(). */
  requeue(id: string): Promise<void> {
    return this.add(id);
  }

  /**
   * Resolves true once job `id` has started (at once if it is running, or not waiting here), false
   * if it is still waiting after `ms` or when `stop` aborts, and at once when more than
   * PROMPT_START_PLACES jobs wait ahead of it: the queue is behind, and a request waiting for the
   * job's outcome answers that it is queued instead.
   */
  startedWithin(id: string, ms: number, stop?: AbortSignal): Promise<boolean> {
    if (this.runningIds.has(id) || !this.known.has(id)) return Promise.resolve(true);
    if (ms <= 0 || stop?.aborted || this.waiting.indexOf(id) > PROMPT_START_PLACES) return Promise.resolve(false);
    return new Promise((resolve) => {
      const listeners = this.starts.get(id) ?? new Set<() => void>();
      this.starts.set(id, listeners);
      const end = (started: boolean) => {
        clearTimeout(timer);
        stop?.removeEventListener('abort', notYet);
        listeners.delete(onStart);
        if (listeners.size === 0 && this.starts.get(id) === listeners) this.starts.delete(id);
        resolve(started);
      };
      const onStart = () => end(true);
      const notYet = () => end(false);
      const timer = setTimeout(notYet, ms);
      stop?.addEventListener('abort', notYet, { once: true });
      listeners.add(onStart);
    });
  }

  async answers(): Promise<boolean> {
    return true;
  }

  async counts(): Promise<Record<string, number>> {
    return { waiting: this.waiting.length, active: this.running, completed: this.completed, failed: this.failed, delayed: this.timers.size };
  }

  /** Stops taking jobs and waits for the running ones. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    if (this.running > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  /** Resolves once nothing is waiting, delayed or running (tests use it). */
  async drained(): Promise<void> {
    while (this.waiting.length || this.running || this.timers.size) await new Promise((r) => setTimeout(r, 10));
  }

  /** Back to the end of the waiting jobs after ms (still known, so an add meanwhile does nothing). */
  private later(id: string, ms: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.closed) return;
      this.waiting.push(id);
      this.pump();
    }, ms);
    this.timers.add(timer);
  }

  private pump(): void {
    while (!this.closed && this.running < this.options.concurrency && this.waiting.length) {
      const id = this.waiting.shift()!;
      void asBackgroundWork(() => this.run(id, 1));
    }
  }

  private async run(id: string, attempt: number): Promise<void> {
    this.running += 1;
    this.runningIds.add(id);
    for (const started of this.starts.get(id) ?? []) started();
    let againMs: number | null = null;
    const context: JobContext = {
      progress: async () => undefined,
      again: (ms) => {
        againMs = ms;
      },
    };
    try {
      await this.handler(id, context);
      if (againMs !== null && !this.closed) this.later(id, againMs);
      else {
        this.completed += 1;
        this.known.delete(id);
      }
    } catch (err) {
      this.options.onError(id, err as Error);
      // An UnrecoverableError (BullMQ's name for a permanent failure) is not retried here either.
      if (attempt < this.options.attempts && !this.closed && (err as Error).name !== 'UnrecoverableError') {
        const timer = setTimeout(
          () => {
            this.timers.delete(timer);
            void this.run(id, attempt + 1);
          },
          this.options.backoffMs * 2 ** (attempt - 1),
        );
        this.timers.add(timer);
      } else {
        this.failed += 1;
        this.known.delete(id);
        await Promise.resolve(this.options.onGiveUp(id, err as Error)).catch((e) => this.options.onError(id, e as Error));
      }
    } finally {
      this.runningIds.delete(id);
      this.running -= 1;
      if (this.running === 0) for (const resolve of this.idle.splice(0)) resolve();
      this.pump();
    }
  }
}
