import { chunkString } from '../decode.js';
import type { FeedListing } from '../feed-listing.js';
import { FeedSyntaxError } from '../feed-syntax-error.js';
import type { KnownFingerprints } from '../known-fingerprints.js';
import type { FeedContext, Issue } from '../types.js';
import { type FeedPosition, feedPosition, feedSyntaxError, readReaxmlHere } from './listing-reader.js';
import { ReaxmlParser } from './parse-reaxml.js';
import { type Dispatched, PiecePump } from './piece-pump.js';
import type { ReadOptions } from './read-options.js';
import { feedListingOf } from './read-piece.js';
import type { ReadPool, ReadThreadOptions } from './read-threads.js';
import { FeedSplitter, type HeadVerdict } from './split-feed.js';

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
    const { buffered, ended, verdict } = await readHead(input, options.splitFrom);
    const split = verdict?.split && buffered.length >= options.splitFrom ? verdict : null;
    const root = split ? rootStart(split.head) : null;
    if (!split || !root) {
      yield* readReaxmlHere(join([buffered], input), feed, feedIssues);
      return;
    }
    feedIssues.push(...root.issues);
    let start: FeedPosition = root.position;
    const known = knownSourcesHint(options.knownSources);
    const splitter = new FeedSplitter(options.pieceSize, options.stuckAfter);
    pump = new PiecePump(splitter, input, ended, buffered.slice(split.head.length), (piece) =>
      pool.run({ piece, feed, dryRun: options.dryRun, known: known() }).catch((err: Error) => err),
    );
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
        // Read on from this piece here, as the feed's reader would have (up to where the feed failed to arrive, if it did).
        const { texts, failure } = await pump.stop();
        yield* readReaxmlHere(join([...first.piece.texts, ...texts], failure ? failing(failure) : input), feed, feedIssues, { ...first.piece, start });
        return;
      }
      feedIssues.push(...result.feedIssues);
      if (result.listings.length > 0) {
        const texts = first.piece.texts;
        let joined: string | undefined;
        const pieceText = () => (joined ??= texts.join(''));
        yield result.listings.map((read) => feedListingOf(read, feed, pieceText));
      }
      if (result.error) throw feedSyntaxError(new FeedSyntaxError(result.error.reason, result.error.line, result.error.column), start);
      if (result.end) start = feedPosition(result.end, start);
    }
  } finally {
    pump?.abandon();
    await input.return?.();
  }
}

/** The feed's text up to its head's verdict, and on to splitFrom when it is to be split (or to its end, if that comes first). */
async function readHead(input: AsyncIterator<string>, splitFrom: number): Promise<{ buffered: string; ended: boolean; verdict: HeadVerdict | null }> {
  let buffered = '';
  let ended = false;
  let verdict: HeadVerdict | null = null;
  while (!ended && (verdict === null || (verdict.split && buffered.length < splitFrom))) {
    const next = await input.next();
    if (next.done) ended = true;
    else buffered += next.value;
    verdict ??= headVerdict(buffered);
  }
  return { buffered, ended, verdict };
}

/** Where the root's content starts and the head's issues; null when the head does not open the root (the feed's own reader gives the error). */
function rootStart(headText: string): { position: FeedPosition; issues: Issue[] } | null {
  const issues: Issue[] = [];
  const head = new ReaxmlParser({ onIssue: (issue) => issues.push(issue), onListing: () => {} });
  try {
    head.write(headText);
  } catch {
    // The feed's own reader gives the error.
  }
  return head.insideRoot ? { position: head.position, issues } : null;
}

/**
 * The known sources as they arrive while the first pieces are read (those are mapped whole): a
 * hint, so one that cannot be had (the database away) only means every listing is mapped.
 */
function knownSourcesHint(load: (() => Promise<KnownFingerprints>) | undefined): () => KnownFingerprints | undefined {
  let known: KnownFingerprints | undefined;
  load?.().then(
    (set) => {
      known = set;
    },
    () => undefined,
  );
  return () => known;
}

/** A feed whose root's start tag has not ended this far in is read on one reader (the head is looked for again as each chunk comes). */
const HEAD_MAX = 256 * 1024;

/**
 * Whether the text so far can be split, and its head (null while that is not known yet): the same
 * answer whatever size the chunks came in (a first chunk of a megabyte holds the head as surely as
 * many small ones do).
 */
function headVerdict(text: string): HeadVerdict | null {
  const verdict = FeedSplitter.head(text);
  if (verdict?.split) return verdict.head.length <= HEAD_MAX ? verdict : { split: false };
  return verdict ?? (text.length > HEAD_MAX ? { split: false } : null);
}

/** Texts already taken from the feed, then the rest of it. */
async function* join(texts: string[], rest: AsyncIterator<string> | null): AsyncGenerator<string> {
  for (const text of texts) if (text) yield text;
  if (!rest) return;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

/** A feed that fails to arrive: read on to this point, then its error. */
const failing = (failure: unknown): AsyncIterator<string> => ({
  next: () => Promise.reject(failure),
});

function toAsync(chunks: Iterable<string>): AsyncIterator<string> {
  const it = chunks[Symbol.iterator]();
  return { next: async () => it.next() };
}
