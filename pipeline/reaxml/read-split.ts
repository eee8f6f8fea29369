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

    const splitter = new FeedSplitter(options.pieceSize);
    const queue: FeedPiece[] = splitter.push(buffered.slice(verdict.head.length));
    buffered = '';
    let lastQueued = false;
    let stuck = false;
    const inFlight: { piece: FeedPiece; result: Promise<PieceResult | Error> }[] = [];
    for (;;) {
      while (inFlight.length < pool.size * 2) {
        if (queue.length === 0) {
          if (lastQueued || stuck) break;
          const next = ended ? { done: true as const } : await input.next();
          if (next.done) {
            queue.push(splitter.end());
            lastQueued = true;
          } else {
            queue.push(...splitter.push(next.value));
            stuck = splitter.stuck;
          }
          continue;
        }
        const piece = queue.shift()!;
        inFlight.push({ piece, result: pool.run({ piece, feed, dryRun: options.dryRun }).catch((err: Error) => err) });
      }
      const first = inFlight.shift();
      if (!first) {
        if (stuck) {
          // No cut for many pieces' worth of text: read the rest here.
          const rest = splitter.end();
          yield* readReaxmlHere(join(rest.texts, input), feed, feedIssues, { ...rest, start });
        }
        return;
      }
      const result = await first.result;
      if (result instanceof Error) throw result;
      if (result.miscut) {
        // Read on from this piece here, as the feed's reader would have.
        const texts = [first.piece, ...inFlight.map((f) => f.piece), ...queue].flatMap((p) => p.texts).concat(lastQueued ? [] : splitter.rest);
        yield* readReaxmlHere(join(texts, lastQueued ? null : input), feed, feedIssues, { ...first.piece, start });
        return;
      }
      feedIssues.push(...result.feedIssues);
      if (result.listings.length > 0) yield result.listings.map(feedListingOf);
      if (result.error) throw feedSyntaxError(new FeedSyntaxError(result.error.reason, result.error.line, result.error.column), start);
      if (result.end) start = feedPosition(result.end, start);
    }
  } finally {
    await input.return?.();
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
