import { chunkString } from '../decode.js';
import { type FeedListing, type SourceSalt, sourceFingerprint, sourceSalt } from '../feed-listing.js';
import { FeedSyntaxError } from '../feed-syntax-error.js';
import { ListingIssues } from '../issues.js';
import type { FeedContext, Issue, ListingDelta } from '../types.js';
import { mapReaxmlListing, readIdentity } from './map-listing.js';
import { PIECE_PREFIX, type PieceStart, ReaxmlParser, type ReaxmlParserHandlers } from './parse-reaxml.js';

/**
 * Bump when a change to the REAXML mapping changes what an unchanged source maps to, so that
 * ingestion stops treating listings with a known source fingerprint as unchanged.
 */
export const REAXML_MAPPING_VERSION = 9; // 3: display range and tax, commercial kinds, plain-text headline and description, extras, file= media; 4: business lease tax, attachments inside <objects>; 5: milliseconds of date-times kept; 6: quoted email local parts kept quoted; 7: emails, dates, street numbers, URLs and markup read within their bounds; 8: real-feed defects (issue 61): Australian states spelt out stored as their abbreviation, features in any case by their REAXML names and other names' numbers kept as numbers, rentPerSquareMeter; 9: inspections in every spelling read as open homes (times in the listing's zone), timeZone

/** Where a reader of a piece started in the feed: positions it reports are moved by this. */
export interface FeedPosition {
  line: number;
  /** 0-based, in code points, as saxes counts. */
  column: number;
}

/** A position a piece's reader reports (its text follows PIECE_PREFIX on line 1), as a position in the feed. */
export function feedPosition(local: FeedPosition, start: FeedPosition): FeedPosition {
  return local.line === 1
    ? { line: start.line, column: start.column + local.column - PIECE_PREFIX.length }
    : { line: start.line + local.line - 1, column: local.column };
}

/** A piece reader's syntax error, placed in the feed. */
export function feedSyntaxError(err: FeedSyntaxError, start: FeedPosition): FeedSyntaxError {
  const { line, column } = feedPosition({ line: err.line, column: err.column - 1 }, start);
  return new FeedSyntaxError(err.reason, line, column + 1);
}

/** A REAXML listing as read: a FeedListing that can also give its source (the element's name, attributes and text after its start tag). */
export interface ReaxmlListing extends FeedListing {
  source(): ListingSource;
}

export interface ListingSource {
  name: string;
  attrs: Record<string, string>;
  /** From after the start tag to the end of the end tag, as read (characters XML does not allow already removed). */
  text: string;
  /** Where text starts in the text the reader was given, when it is exactly that slice of it (nothing was removed from it); else null. */
  at: number | null;
}

/**
 * The handlers that turn what a REAXML reader reads into FeedListings (pushed to ready): each
 * listing is read once, its element tree kept with its source text, which its fingerprint is taken
 * over; mapping the tree is left to the first delta() call, so ingestion maps only listings whose
 * fingerprint it does not know. Issues that belong to no listing go to feedIssues.
 */
export function listingHandlers(feed: FeedContext, salt: SourceSalt, feedIssues: Issue[], ready: ReaxmlListing[]): ReaxmlParserHandlers {
  let pending: ListingIssues | null = null;
  return {
    onIssue(issue, listingIndex) {
      if (listingIndex === null) {
        feedIssues.push(issue);
        return;
      }
      if (!pending || pending.listingIndex !== listingIndex) pending = new ListingIssues(listingIndex);
      pending.add(issue);
    },
    onListing({ node, index, source: text, sourceAt }) {
      const issues: ListingIssues = pending?.listingIndex === index ? pending : new ListingIssues(index);
      pending = null;
      const read = readIdentity(node, feed);
      const { identity } = read;
      let delta: ListingDelta | null | undefined;
      let hash: string | undefined;
      ready.push({
        index,
        path: node.path,
        identity,
        sourceHash: () => (hash ??= sourceFingerprint(salt, node.name, JSON.stringify(node.attrs), text)),
        issues,
        delta: () => {
          if (delta === undefined) delta = mapReaxmlListing(node, index, feed, issues, read).delta;
          return delta;
        },
        source: () => ({ name: node.name, attrs: node.attrs, text, at: sourceAt }),
      });
    },
  };
}

export const reaxmlSalt = (feed: FeedContext): SourceSalt => sourceSalt('reaxml', REAXML_MAPPING_VERSION, feed);

/**
 * Streams a REAXML feed on this thread: yields the listings read since the last yield, in feed
 * order, after each chunk of text. Throws FeedSyntaxError when the feed as a whole cannot be read;
 * listings yielded before that stand. piece: the text is the rest of a feed from a cut (see
 * split-feed.ts) at start, and errors are placed in the feed accordingly.
 */
export async function* readReaxmlHere(
  source: string | AsyncIterable<string>,
  feed: FeedContext,
  feedIssues: Issue[],
  piece?: PieceStart & { start: FeedPosition },
): AsyncGenerator<FeedListing[]> {
  const ready: ReaxmlListing[] = [];
  // An issue outside any listing found after a listing still waiting to be handed over is held
  // until that listing has been: issues then come in feed order, as when the feed is read in pieces.
  const held: Issue[] = [];
  const inOrder = {
    push: (...found: Issue[]) => (ready.length ? held : feedIssues).push(...found),
  } as unknown as Issue[];
  const parser = new ReaxmlParser(listingHandlers(feed, reaxmlSalt(feed), inOrder, ready), piece);
  const placed = (err: unknown) => (piece && err instanceof FeedSyntaxError ? feedSyntaxError(err, piece.start) : err);
  async function* handOver() {
    if (ready.length) yield ready.splice(0);
    feedIssues.push(...held.splice(0));
  }
  let sinceYield = 0;
  const chunks = typeof source === 'string' ? chunkString(source) : source;
  for await (const chunk of chunks) {
    try {
      parser.write(chunk);
    } catch (err) {
      yield* handOver();
      throw placed(err);
    }
    yield* handOver();
    // Let other requests run while a large feed parses.
    if ((sinceYield += chunk.length) >= 1 << 20) {
      sinceYield = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  try {
    parser.close();
  } catch (err) {
    yield* handOver();
    throw placed(err);
  }
  yield* handOver();
}
