import type { JobContext, JobHandler, JobQueue, RetryPolicy } from './job-queue.js';

/**
 * The embedded default's queue (no REDIS_URL): jobs run in this process on the very same
 * handlers the BullMQ workers call, with the same retry policy. Jobs live in memory; what makes
 * them durable is the database row each one points at, which the stale-event sweep re-queues
 * after a restart.
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
      void this.run(this.waiting.shift()!, 1);
    }
  }

  private async run(id: string, attempt: number): Promise<void> {
    this.running += 1;
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
      this.running -= 1;
      if (this.running === 0) for (const resolve of this.idle.splice(0)) resolve();
      this.pump();
    }
  }
}
