import { hash } from 'node:crypto';
import type { ListingIssues } from './issues.js';
import type { FeedContext, ListingDelta } from './types.js';
import type { FieldPaths } from './validate-listing.js';

/**
 * One listing of a feed as read, before it is merged with anything. Mapping to a canonical delta
 * is deferred to the first delta() call, so ingestion can skip it for listings whose source is
 * identical to what was last applied.
 */
export interface FeedListing {
  /** 0-based position among the feed's listings. */
  index: number;
  path: string;
  /** Present whenever the record names its office and uniqueId, valid or not. */
  identity: { office: string; uniqueId: string } | null;
  /**
   * sha256 of the listing's source text and attributes, the feed context and the mapping version
   * (computed on first call): equal fingerprints map to equal deltas.
   */
  sourceHash(): string;
  /** The listing's issues; mapping adds to them. */
  issues: ListingIssues;
  /** The canonical delta, mapped on first call; null when the record cannot be identified or dated. */
  delta(): ListingDelta | null;
  /** Where the source keeps the fields validation names, when not under their canonical names. */
  fieldPaths?: FieldPaths;
}

/**
 * What besides a listing's source decides what it maps to: the format's mapping version and the
 * feed context. Every reader salts its source fingerprints with it.
 */
export function sourceSalt(mappingVersion: number, feed: FeedContext): string {
  return JSON.stringify([mappingVersion, feed.currency ?? null, feed.defaultCountry, feed.sourceLocale, feed.sourceOfficeId ?? null]);
}

/**
 * A source fingerprint: sha256 (base64url) of the salt and the parts, in one pass. The same as
 * hashing the parts one after another, so stored fingerprints stay valid.
 */
export function sourceFingerprint(salt: string, ...parts: string[]): string {
  return hash('sha256', salt + parts.join(''), 'base64url');
}
