import { dryRunOutcome, type Preview, previewOfJson } from '../apply-listing.js';
import type { FeedListing } from '../feed-listing.js';
import { FeedSyntaxError } from '../feed-syntax-error.js';
import { ListingIssues } from '../issues.js';
import type { FeedContext, Issue, ListingDelta } from '../types.js';
import { type FeedPosition, listingHandlers, reaxmlSalt } from './listing-reader.js';
import { ReaxmlParser } from './parse-reaxml.js';
import type { ReadOptions } from './read-threads.js';
import type { FeedPiece } from './split-feed.js';

/** A listing read, fingerprinted and mapped apart from the feed's other pieces, as it crosses between threads. */
export interface ReadListing {
  index: number;
  path: string;
  identity: FeedListing['identity'];
  /** Absent when a dry run was asked for (nothing compares it). */
  sourceHash?: string;
  /** The delta as JSON (parsed when asked for: ingestion does not ask for an unchanged listing's); absent when a dry run was asked for. */
  delta?: string;
  issues: Issue[];
  uniqueId: string | null;
  /** When a dry run was asked for: the listing applied as new, its preview as JSON when previews are hashed. */
  dryRun?: { valid: false } | { valid: true; listingKey: string; modTime: string; office: string; uniqueId: string; preview: string | null };
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

/** Reads, fingerprints and maps one piece of a feed cut by FeedSplitter (and applies each listing as new, when a dry run asks). */
export function readPiece(piece: FeedPiece, feed: FeedContext, options: ReadOptions = {}): PieceResult {
  const ready: FeedListing[] = [];
  const feedIssues: Issue[] = [];
  const parser = new ReaxmlParser(listingHandlers(feed, reaxmlSalt(feed), feedIssues, ready), piece);
  const result: PieceResult = { listings: [], feedIssues };
  // Listings are mapped as each part is read, so that few element trees are alive at once.
  const mapReady = () => {
    for (const listing of ready) result.listings.push(crossing(listing, options));
    ready.length = 0;
  };
  try {
    for (const text of piece.texts) {
      parser.write(text);
      mapReady();
    }
    if (piece.final) parser.close();
    else {
      result.end = parser.position;
      if (!parser.endPiece()) return { listings: [], feedIssues: [], miscut: true };
    }
  } catch (err) {
    if (!(err instanceof FeedSyntaxError)) throw err;
    result.error = { reason: err.reason, line: err.line, column: err.column };
  }
  mapReady();
  return result;
}

/** A listing read here, fingerprinted and mapped (applied as new, for a dry run), as it crosses to the thread that asked. */
function crossing(listing: FeedListing, options: ReadOptions): ReadListing {
  const read: ReadListing = { index: listing.index, path: listing.path, identity: listing.identity, issues: listing.issues.list, uniqueId: null };
  if (options.dryRun) {
    const outcome = dryRunOutcome(listing, options.dryRun.hash);
    read.dryRun = outcome.valid ? { ...outcome, preview: options.dryRun.hash ? outcome.preview.json() : null } : outcome;
  } else {
    read.sourceHash = listing.sourceHash();
    read.delta = JSON.stringify(listing.delta());
  }
  read.uniqueId = listing.issues.uniqueId;
  return read;
}

/** The preview of a dry run that keeps none (its reading thread made none). */
const NOT_KEPT: Preview = {
  listing: () => {
    throw new Error('this dry run keeps no previews');
  },
  json: () => {
    throw new Error('this dry run keeps no previews');
  },
};

/** A listing read on another thread, as the feed's readers hand listings on. */
export function feedListingOf(read: ReadListing): FeedListing {
  const issues = new ListingIssues(read.index);
  issues.uniqueId = read.uniqueId;
  for (const issue of read.issues) issues.list.push(issue);
  let delta: ListingDelta | null | undefined;
  const listing: FeedListing = {
    index: read.index,
    path: read.path,
    identity: read.identity,
    sourceHash: () => {
      if (read.sourceHash === undefined) throw new Error('this listing was read for a dry run: its fingerprint was not taken');
      return read.sourceHash;
    },
    issues,
    delta: () => {
      if (read.delta === undefined) throw new Error('this listing was read for a dry run: its delta stayed on the reading thread');
      if (delta === undefined) delta = JSON.parse(read.delta) as ListingDelta | null;
      return delta;
    },
  };
  const outcome = read.dryRun;
  if (outcome?.valid) listing.dryRun = { ...outcome, preview: outcome.preview === null ? NOT_KEPT : previewOfJson(outcome.preview) };
  else if (outcome) listing.dryRun = outcome;
  return listing;
}
