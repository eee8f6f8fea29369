import type { PieceResult } from './read-piece.js';
import type { FeedPiece, FeedSplitter } from './split-feed.js';

export interface Dispatched {
  piece: FeedPiece;
  result: Promise<PieceResult | Error>;
}

/**
 * Reads the feed on, cuts it into pieces and sends them to be read, up to a number of pieces at
 * once (done or not), whether or not the pieces already read have been taken: the threads keep
 * reading while the consumer waits on something else (ingestion, on the database). next() gives
 * the pieces in feed order.
 */
export class PiecePump {
  private readonly queue: FeedPiece[] = [];
  private readonly sent: Dispatched[] = [];
  private wakePump: (() => void) | null = null;
  private wakeConsumer: (() => void) | null = null;
  private running: Promise<void> = Promise.resolve();
  private lastQueued = false;
  private stopping = false;
  private failure: unknown = null;
  private done = false;

  constructor(
    private readonly splitter: FeedSplitter,
    private readonly input: AsyncIterator<string>,
    private readonly inputEnded: boolean,
    first: string,
    private readonly send: (piece: FeedPiece) => Promise<PieceResult | Error>,
  ) {
    this.queue.push(...splitter.push(first));
  }

  start(limit: number): void {
    this.running = this.run(limit).then(
      () => this.finish(null),
      (err: unknown) => this.finish(err),
    );
  }

  /** The next piece sent, in feed order; null when every piece has been given (then rest() says whether text is left to read). */
  async next(): Promise<Dispatched | null> {
    while (this.sent.length === 0) {
      if (this.done) {
        if (this.failure) throw this.failure;
        return null;
      }
      await new Promise<void>((resolve) => {
        this.wakeConsumer = resolve;
      });
    }
    const first = this.sent.shift()!;
    this.wake('pump');
    return first;
  }

  /** After next() gave null: the text not cut into pieces (the splitter found no cut for too long), or null. */
  async rest(): Promise<FeedPiece | null> {
    await this.running;
    return this.splitter.stuck && !this.lastQueued ? this.splitter.end() : null;
  }

  /**
   * Stops sending; gives the text of every piece sent or cut but not given, and of what the
   * splitter holds, in feed order, and why reading the feed on failed, if it did.
   */
  async stop(): Promise<{ texts: string[]; failure: unknown }> {
    this.stopping = true;
    this.wake('pump');
    await this.running;
    const texts = [...this.sent.map((d) => d.piece), ...this.queue].flatMap((p) => p.texts).concat(this.lastQueued ? [] : this.splitter.rest);
    return { texts, failure: this.failure };
  }

  /** The consumer has gone: send nothing more. */
  abandon(): void {
    this.stopping = true;
    this.wake('pump');
  }

  private async run(limit: number): Promise<void> {
    while (!this.stopping) {
      if (this.queue.length === 0) {
        if (this.lastQueued || this.splitter.stuck) return;
        const next = this.inputEnded ? { done: true as const } : await this.input.next();
        if (this.stopping) {
          if (!next.done) this.queue.push(...this.splitter.push(next.value));
          return;
        }
        if (next.done) {
          this.queue.push(this.splitter.end());
          this.lastQueued = true;
        } else this.queue.push(...this.splitter.push(next.value));
        continue;
      }
      if (this.sent.length >= limit) {
        await new Promise<void>((resolve) => {
          this.wakePump = resolve;
        });
        continue;
      }
      const piece = this.queue.shift()!;
      this.sent.push({ piece, result: this.send(piece) });
      this.wake('consumer');
    }
  }

  private finish(err: unknown): void {
    this.failure = err;
    this.done = true;
    this.wake('consumer');
  }

  private wake(who: 'pump' | 'consumer'): void {
    const resolve = who === 'pump' ? this.wakePump : this.wakeConsumer;
    if (who === 'pump') this.wakePump = null;
    else this.wakeConsumer = null;
    resolve?.();
  }
}
