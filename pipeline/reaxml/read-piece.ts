import type { FeedListing } from '../feed-listing.js';
import { FeedSyntaxError } from '../feed-syntax-error.js';
import { ListingIssues } from '../issues.js';
import type { FeedContext, Issue, ListingDelta } from '../types.js';
import { type FeedPosition, listingHandlers, reaxmlSalt } from './listing-reader.js';
import { ReaxmlParser } from './parse-reaxml.js';
import type { FeedPiece } from './split-feed.js';

/** A listing read, fingerprinted and mapped apart from the feed's other pieces. */
export interface ReadListing {
  index: number;
  path: string;
  identity: FeedListing['identity'];
  sourceHash: string;
  delta: ListingDelta | null;
  issues: Issue[];
  uniqueId: string | null;
}

/** What reading a piece found, with positions as the piece's reader counts them (see feedPosition). */
export interface PieceResult {
  /** The listings read before the piece ended or the error. */
  listings: ReadListing[];
  /** Issues that belong to no listing. */
  feedIssues: Issue[];
  /** Where a piece that is not the last ended. */
  end?: FeedPosition;
  /** The feed's first syntax error, when it is in this piece. */
  error?: { reason: string; line: number; column: number };
  /** The piece did not end between two root children: the feed must be read on from the piece's start by one reader. */
  miscut?: true;
}

/** Reads, fingerprints and maps one piece of a feed cut by FeedSplitter. */
export function readPiece(piece: FeedPiece, feed: FeedContext): PieceResult {
  const ready: FeedListing[] = [];
  const feedIssues: Issue[] = [];
  const parser = new ReaxmlParser(listingHandlers(feed, reaxmlSalt(feed), feedIssues, ready), piece);
  const result: PieceResult = { listings: [], feedIssues };
  try {
    parser.write(piece.text);
    if (piece.final) parser.close();
    else {
      result.end = parser.position;
      if (!parser.endPiece()) return { listings: [], feedIssues: [], miscut: true };
    }
  } catch (err) {
    if (!(err instanceof FeedSyntaxError)) throw err;
    result.error = { reason: err.reason, line: err.line, column: err.column };
  }
  for (const listing of ready) {
    const delta = listing.delta();
    result.listings.push({
      index: listing.index,
      path: listing.path,
      identity: listing.identity,
      sourceHash: listing.sourceHash(),
      delta,
      issues: listing.issues.list,
      uniqueId: listing.issues.uniqueId,
    });
  }
  return result;
}

/** A listing read on another thread, as the feed's readers hand listings on. */
export function feedListingOf(read: ReadListing): FeedListing {
  const issues = new ListingIssues(read.index);
  issues.uniqueId = read.uniqueId;
  for (const issue of read.issues) issues.list.push(issue);
  return { index: read.index, path: read.path, identity: read.identity, sourceHash: () => read.sourceHash, issues, delta: () => read.delta };
}
