import { type Applied, type Preview, previewOfJson } from '../applied.js';
import { applyListing, dryRunOutcome } from '../apply-listing.js';
import type { FeedListing } from '../feed-listing.js';
import { FeedSyntaxError } from '../feed-syntax-error.js';
import { ListingIssues } from '../issues.js';
import { isKnown } from '../known-fingerprints.js';
import { insertedOnThread, type StoredRow, storedRowOf } from '../stored-row.js';
import type { FeedContext, Issue, ListingDelta } from '../types.js';
import type { XmlNode } from '../xml-node.js';
import { type FeedPosition, type ListingSource, listingHandlers, type ReaxmlListing, reaxmlSalt } from './listing-reader.js';
import { mapReaxmlListing, readIdentity } from './map-listing.js';
import { PIECE_PREFIX, ReaxmlParser } from './parse-reaxml.js';
import type { PieceOptions } from './read-options.js';
import type { FeedPiece } from './split-feed.js';

/** A listing read, fingerprinted and mapped apart from the feed's other pieces, as it crosses between threads. */
export interface ReadListing {
  index: number;
  path: string;
  identity: FeedListing['identity'];
  /** Absent when a dry run was asked for (nothing compares it). */
  sourceHash?: string;
  /** The delta as JSON (parsed when asked for); absent for a dry run, and for a source the store already has (then source is given). */
  delta?: string;
  /** When mapped for ingestion: the issues as they were read, before mapping (issues then holds them after mapping, and the mapping's own). */
  readIssues?: { list: Issue[]; uniqueId: string | null };
  /** When mapped for ingestion: what applying it as new added to its issues, and unless it is invalid the record (JSON) and its stored row. */
  asNew?: { added: Issue[]; record: null } | { added: Issue[]; record: string; row: StoredRow };
  /**
   * A source the store already has was not mapped: its source, should the listing have to be mapped
   * after all. Its text does not cross back when it is a slice of the piece's own (the thread that
   * asked has that): only where it lies.
   */
  source?: CrossingSource;
  issues: Issue[];
  uniqueId: string | null;
  /** When a dry run was asked for: the listing applied as new, its preview as JSON when previews are hashed. */
  dryRun?: { valid: false } | { valid: true; listingKey: string; modTime: string; office: string; uniqueId: string; preview: string | null };
}

/** A listing's source as it crosses: its text, or where that lies in the piece's text. */
export type CrossingSource = { name: string; attrs: Record<string, string>; position: number } & ({ text: string } | { span: [number, number] });

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
export function readPiece(piece: FeedPiece, feed: FeedContext, options: PieceOptions = {}): PieceResult {
  const ready: ReaxmlListing[] = [];
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
function crossing(listing: ReaxmlListing, options: PieceOptions): ReadListing {
  const read: ReadListing = { index: listing.index, path: listing.path, identity: listing.identity, issues: listing.issues.list, uniqueId: null };
  if (options.dryRun) {
    const outcome = dryRunOutcome(listing, options.dryRun.hash);
    read.dryRun = outcome.valid ? { ...outcome, preview: options.dryRun.hash ? outcome.preview.json() : null } : outcome;
  } else {
    read.sourceHash = listing.sourceHash();
    if (options.known && isKnown(options.known, read.sourceHash)) {
      const position = Number(/\[(\d+)\]$/.exec(listing.path)?.[1] ?? 1);
      const { name, attrs, text, at } = listing.source();
      // The piece's reader was given PIECE_PREFIX, then the piece's text.
      const from = at === null ? null : at - PIECE_PREFIX.length;
      read.source = from === null ? { name, attrs, position, text } : { name, attrs, position, span: [from, from + text.length] };
    } else {
      // Ingestion may not ask for the delta (a source the store has): until it does, the listing carries only what reading found.
      read.readIssues = { list: listing.issues.list.map((issue) => ({ ...issue })), uniqueId: listing.issues.uniqueId };
      read.delta = JSON.stringify(listing.delta());
      // A new listing (a first load's every one) is then applied without merging, validating and hashing it again.
      const trial: FeedListing = { ...listing, issues: listing.issues.copy() };
      const before = trial.issues.list.length;
      const applied = applyListing(null, trial);
      const added = trial.issues.list.slice(before);
      read.asNew =
        applied.action === 'inserted' ? { added, record: JSON.stringify(applied.listing), row: storedRowOf(applied.listing) } : { added, record: null };
    }
  }
  read.uniqueId = listing.issues.uniqueId;
  return read;
}

/**
 * The issues a listing mapped on its reading thread has once it is asked for its delta, as if it
 * had been mapped here: what reading found, then what was added since (stamped with the uniqueId,
 * as mapping stamps every issue it finds), then the mapping's own.
 */
function mapped(issues: ListingIssues, readCount: number, read: ReadListing): void {
  const added = issues.list.slice(readCount);
  issues.list.length = 0;
  issues.list.push(...read.issues.slice(0, readCount));
  for (const issue of added) {
    issue.uniqueId ??= read.uniqueId;
    issues.list.push(issue);
  }
  issues.list.push(...read.issues.slice(readCount));
  issues.uniqueId = read.uniqueId;
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

/**
 * A listing read on another thread, as the feed's readers hand listings on. pieceText: the text of
 * the piece it was read from, for a source that crossed as where it lies.
 */
export function feedListingOf(read: ReadListing, feed: FeedContext, pieceText: () => string): FeedListing {
  const issues = new ListingIssues(read.index);
  const asRead = read.readIssues ?? { list: read.issues, uniqueId: read.uniqueId };
  issues.uniqueId = asRead.uniqueId;
  for (const issue of asRead.list) issues.list.push(issue);
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
      if (delta !== undefined) return delta;
      if (read.delta !== undefined) {
        delta = JSON.parse(read.delta) as ListingDelta | null;
        takeMappingIssues();
      } else if (read.source) delta = mapSource(sourceOf(read.source, pieceText), read.index, feed, issues);
      else throw new Error('this listing was read for a dry run: its delta stayed on the reading thread');
      return delta;
    },
  };
  let issuesMapped = false;
  /** The issues as mapping left them, once. */
  const takeMappingIssues = () => {
    if (issuesMapped || !read.readIssues) return;
    issuesMapped = true;
    mapped(issues, read.readIssues.list.length, read);
  };
  const asNew = read.asNew;
  if (asNew) {
    // Worked out once: deciding a batch again (on copies of its listings) adds nothing to the issues twice.
    let applied: Applied | undefined;
    listing.appliedAsNew = () => {
      if (applied) return applied;
      takeMappingIssues();
      // As applyListing decides: a listing with an error (one added here since it was read included) is not validated.
      if (issues.hasErrors) applied = { action: 'invalid' };
      else {
        issues.list.push(...asNew.added);
        applied = asNew.record === null ? { action: 'invalid' } : insertedOnThread(asNew.record, asNew.row);
      }
      return applied;
    };
  }
  const outcome = read.dryRun;
  if (outcome?.valid) listing.dryRun = { ...outcome, preview: outcome.preview === null ? NOT_KEPT : previewOfJson(outcome.preview) };
  else if (outcome) listing.dryRun = outcome;
  return listing;
}

/** A source that crossed, with its text. */
function sourceOf(source: CrossingSource, pieceText: () => string): ListingSource & { position: number } {
  const text = 'text' in source ? source.text : pieceText().slice(source.span[0], source.span[1]);
  return { name: source.name, attrs: source.attrs, position: source.position, text, at: null };
}

/**
 * Maps, here, a listing its reading thread did not map (its source was one the store had): the
 * source is read again as the one element it is, at its place in the feed (same index and path),
 * and the mapping's issues go to the listing's own; what reading it finds again was reported when
 * it was first read.
 */
function mapSource(source: ListingSource & { position: number }, index: number, feed: FeedContext, issues: ListingIssues): ListingDelta | null {
  let node: XmlNode | null = null;
  const parser = new ReaxmlParser(
    {
      onIssue: () => {},
      onListing: (listing) => {
        node = listing.node;
      },
    },
    { listingsBefore: index, countsBefore: new Map([[source.name, source.position - 1]]) },
  );
  parser.write(`<${source.name}${attributesXml(source.attrs)}>`);
  parser.write(source.text);
  if (node === null) throw new Error(`listing ${index} could not be read again to be mapped`);
  return mapReaxmlListing(node, index, feed, issues, readIdentity(node, feed)).delta;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '"': '&quot;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };

/** Attributes written so that reading them gives back exactly these values (whitespace kept as references, which attribute normalisation leaves alone). */
const attributesXml = (attrs: Record<string, string>) =>
  Object.entries(attrs)
    .map(([name, value]) => ` ${name}="${value.replace(/[&<"\t\n\r]/g, (c) => ESCAPES[c])}"`)
    .join('');
