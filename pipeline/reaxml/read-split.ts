import { chunkString } from '../decode.js';
import type { FeedListing } from '../feed-listing.js';
import { FeedSyntaxError } from '../feed-syntax-error.js';
import type { FeedContext, Issue } from '../types.js';
import { type FeedPosition, feedPosition, feedSyntaxError, readReaxmlHere } from './listing-reader.js';
import { ReaxmlParser } from './parse-reaxml.js';
import { feedListingOf, type PieceResult } from './read-piece.js';
import type { ReadOptions, ReadPool, ReadThreadOptions } from './read-threads.js';
import { type FeedPiece, FeedSplitter, type HeadVerdict } from './split-feed.js';

/**
 * Reads a REAXML feed on worker threads, yielding exactly what readReaxmlHere would (listings in
 * feed order, the same issues, the same first syntax error at the same line and column):
 * - the head (up to the end of the root's start tag) is read here;
 * - the root's content is cut between its children into pieces (FeedSplitter), each read, fingerprinted
 *   and mapped on a thread, a few at once, and handed on in order;
 * - a feed too small to be worth it, or one the splitter does not handle (another root, XML 1.1, a
 *   DOCTYPE with declarations), is read here whole; so is the rest of a feed from a piece that did
 *   not end between two root children.
 */
export async function* readReaxmlSplit(
  source: string | AsyncIterable<string>,
  feed: FeedContext,
  feedIssues: Issue[],
  pool: ReadPool,
  options: ReadThreadOptions & ReadOptions,
): AsyncGenerator<FeedListing[]> {
  const input = typeof source === 'string' ? toAsync(chunkString(source)) : source[Symbol.asyncIterator]();
  let pump: PiecePump | null = null;
  try {
    let buffered = '';
    let ended = false;
    let verdict: HeadVerdict | null = null;
    while (!ended && (verdict === null || (verdict.split && buffered.length < options.splitFrom))) {
      const next = await input.next();
      if (next.done) ended = true;
      else buffered += next.value;
      verdict ??= buffered.length > HEAD_MAX ? { split: false } : FeedSplitter.head(buffered);
    }
    if (!verdict?.split || buffered.length < options.splitFrom) {
      yield* readReaxmlHere(join([buffered], input), feed, feedIssues);
      return;
    }
    const headIssues: Issue[] = [];
    const head = new ReaxmlParser({ onIssue: (issue) => headIssues.push(issue), onListing: () => {} });
    try {
      head.write(verdict.head);
    } catch {
      // The feed's own reader gives the error.
    }
    if (!head.insideRoot) {
      yield* readReaxmlHere(join([buffered], input), feed, feedIssues);
      return;
    }
    feedIssues.push(...headIssues);
    let start: FeedPosition = head.position;

    const known = options.knownSources ? await options.knownSources() : undefined;
    const splitter = new FeedSplitter(options.pieceSize);
    pump = new PiecePump(splitter, input, ended, buffered.slice(verdict.head.length), (piece) =>
      pool.run({ piece, feed, dryRun: options.dryRun, known }).catch((err: Error) => err),
    );
    buffered = '';
    pump.start(pool.size * 2);
    for (;;) {
      const first: Dispatched | null = await pump.next();
      if (first === null) {
        const rest = await pump.rest();
        if (rest) yield* readReaxmlHere(join(rest.texts, input), feed, feedIssues, { ...rest, start }); // no cut for many pieces' worth of text
        return;
      }
      const result = await first.result;
      if (result instanceof Error) throw result;
      if (result.miscut) {
        // Read on from this piece here, as the feed's reader would have.
        const texts = [...first.piece.texts, ...(await pump.stop())];
        yield* readReaxmlHere(join(texts, input), feed, feedIssues, { ...first.piece, start });
        return;
      }
      feedIssues.push(...result.feedIssues);
      if (result.listings.length > 0) yield result.listings.map((read) => feedListingOf(read, feed));
      if (result.error) throw feedSyntaxError(new FeedSyntaxError(result.error.reason, result.error.line, result.error.column), start);
      if (result.end) start = feedPosition(result.end, start);
    }
  } finally {
    pump?.abandon();
    await input.return?.();
  }
}

interface Dispatched {
  piece: FeedPiece;
  result: Promise<PieceResult | Error>;
}

/**
 * Reads the feed on, cuts it into pieces and sends them to be read, up to a number of pieces at
 * once (done or not), whether or not the pieces already read have been taken: the threads keep
 * reading while the consumer waits on something else (ingestion, on the database). next() gives
 * the pieces in feed order.
 */
class PiecePump {
  private readonly queue: FeedPiece[] = [];
  private readonly sent: Dispatched[] = [];
  private wakePump: (() => void) | null = null;
  private wakeConsumer: (() => void) | null = null;
  private running: Promise<void> = Promise.resolve();
  private lastQueued = false;
  private stuck = false;
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
    this.stuck = splitter.stuck;
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
    return this.stuck && !this.lastQueued ? this.splitter.end() : null;
  }

  /** Stops sending; returns the text of every piece sent or cut but not given, and of what the splitter holds, in feed order. */
  async stop(): Promise<string[]> {
    this.stopping = true;
    this.wake('pump');
    await this.running;
    return [...this.sent.map((d) => d.piece), ...this.queue].flatMap((p) => p.texts).concat(this.lastQueued ? [] : this.splitter.rest);
  }

  /** The consumer has gone: send nothing more. */
  abandon(): void {
    this.stopping = true;
    this.wake('pump');
  }

  private async run(limit: number): Promise<void> {
    while (!this.stopping) {
      if (this.queue.length === 0) {
        if (this.lastQueued || this.stuck) return;
        const next = this.inputEnded ? { done: true as const } : await this.input.next();
        if (this.stopping) {
          if (!next.done) this.queue.push(...this.splitter.push(next.value));
          return;
        }
        if (next.done) {
          this.queue.push(this.splitter.end());
          this.lastQueued = true;
        } else {
          this.queue.push(...this.splitter.push(next.value));
          this.stuck = this.splitter.stuck;
        }
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

/** A feed whose root's start tag has not ended this far in is read on one reader (the head is looked for again as each chunk comes). */
const HEAD_MAX = 256 * 1024;

/** Texts already taken from the feed, then the rest of it. */
async function* join(texts: string[], rest: AsyncIterator<string> | null): AsyncGenerator<string> {
  for (const text of texts) if (text) yield text;
  if (!rest) return;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

function toAsync(chunks: Iterable<string>): AsyncIterator<string> {
  const it = chunks[Symbol.iterator]();
  return { next: async () => it.next() };
}
