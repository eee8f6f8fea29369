import { hash } from 'node:crypto';
import type { Applied, DryRunOutcome } from './applied.js';
import type { ListingIssues } from './issues.js';
import type { FeedContext, FeedFormat, ListingDelta } from './types.js';
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
   * The mapping that reads it and sha256 of the listing's source text and attributes and the feed
   * context, `reaxml1:<hash>` (computed on first call): equal fingerprints map to equal deltas.
   */
  sourceHash(): string;
  /** The listing's issues; mapping adds to them. */
  issues: ListingIssues;
  /** The canonical delta, mapped on first call; null when the record cannot be identified or dated. */
  delta(): ListingDelta | null;
  /** Where the source keeps the fields validation names, when not under their canonical names. */
  fieldPaths?: FieldPaths;
  /** The listing applied as new, when the reader was asked for it for a dry run and did it where it read the listing. */
  dryRun?: DryRunOutcome;
  /**
   * The listing applied as new (no stored version) as ingestion applies it, when the reader worked
   * it out where it read the listing (a reading thread). applyListing uses it instead of merging,
   * validating and hashing again.
   */
  appliedAsNew?(): Applied;
}

/**
 * What besides a listing's source decides what it maps to: the format and its mapping version
 * (the fingerprint's visible prefix, e.g. `reaxml1`) and the feed context. Every reader salts its
 * source fingerprints with it.
 */
export interface SourceSalt {
  mapping: string;
  context: string;
}

export function sourceSalt(format: FeedFormat, mappingVersion: number, feed: FeedContext): SourceSalt {
  return {
    mapping: `${format}${mappingVersion}`,
    context: JSON.stringify([mappingVersion, feed.currency ?? null, feed.defaultCountry, feed.sourceLocale, feed.sourceOfficeId ?? null]),
  };
}

/**
 * A source fingerprint: the mapping that read it, then sha256 (base64url) of the context and the
 * parts, as `reaxml1:<hash>`. The prefix tells a fingerprint made by an older mapping apart from one
 * of a different source (see workers/ingest/apply-batch.ts).
 */
export function sourceFingerprint(salt: SourceSalt, ...parts: string[]): string {
  return `${salt.mapping}:${hash('sha256', salt.context + parts.join(''), 'base64url')}`;
}

/** The mapping a fingerprint was made by (`reaxml1`), or '' for one stored before fingerprints named it. */
export function fingerprintMapping(fingerprint: string): string {
  const colon = fingerprint.indexOf(':');
  return colon < 0 ? '' : fingerprint.slice(0, colon);
}
