import { type Applied, type DryRunOutcome, previewOf } from './applied.js';
import type { FeedListing } from './feed-listing.js';
import { inStoredZone } from './local-times.js';
import { mergeListing } from './merge.js';
import type { CanonicalListing } from './types.js';
import { validateListing } from './validate-listing.js';

/** True when `a` is an earlier instant than `b` (modTimes carry offsets, so strings do not compare). */
export function isEarlier(a: string, b: string): boolean {
  return Date.parse(a) < Date.parse(b);
}

/**
 * Applying a listing (docs/architecture.md, Ingestion), for one listing against its stored version (null when new), pure: stale check,
 * merge of the delta, validation of the merged record, then the content hash decides between
 * unchanged and updated (an unchanged record with a newer modTime says so: its modTime is kept).
 * An archived listing that reappears differs in status, so it is updated.
 * Issues found on the way are added to the listing's own issue list. A dry run (nothing stored to
 * merge onto) validates a REAXML record as the delta it is: one without an address is valid with a
 * delta_needs_stored_listing warning, as it would be when it updates a stored listing.
 * hash: false (a dry run keeping no previews) skips the content hash, which nothing then reads.
 */
export function applyListing(stored: CanonicalListing | null, item: FeedListing, options: { dryRun?: boolean; hash?: boolean } = {}): Applied {
  if (!stored && item.appliedAsNew && !options.dryRun && options.hash !== false) return item.appliedAsNew();
  const read = item.delta();
  if (!read || item.issues.hasErrors) return { action: 'invalid' };
  const delta = inStoredZone(read, stored);
  // The identity the feed's scope was checked on is the one stored under, or nothing is stored.
  if (!item.identity || item.identity.office !== delta.office || item.identity.uniqueId !== delta.uniqueId) {
    item.issues.error('invalid_identity', "the listing's identity reads differently in its parts; not stored", item.path);
    return { action: 'invalid' };
  }
  if (stored && isEarlier(delta.modTime, stored.modTime)) return { action: 'stale_ignored', listing: stored };
  const merged = mergeListing(stored, delta, { hash: options.hash });
  validateListing(merged, item.issues, item.path, item.fieldPaths, {
    delta: options.dryRun && delta.format === 'reaxml',
    updatesStored: stored !== null,
  });
  if (item.issues.hasErrors) return { action: 'invalid' };
  if (!stored) return { action: 'inserted', listing: merged };
  if (merged.contentHash === stored.contentHash) {
    // modTime is not content, but the newest modTime seen must be the one an older record is
    // judged against, or a record between the two would overwrite the newer one's content.
    const advanced = isEarlier(stored.modTime, delta.modTime);
    return { action: 'unchanged', listing: advanced ? { ...stored, modTime: delta.modTime } : stored, advanced };
  }
  return { action: 'updated', listing: merged };
}

/** A listing applied as new, as a dry run does (hash: previews are kept, so they carry their content hash). */
export function dryRunOutcome(item: FeedListing, hash: boolean): DryRunOutcome {
  const applied = applyListing(null, item, { dryRun: true, hash });
  if (applied.action === 'invalid') return { valid: false };
  const listing = applied.listing;
  return {
    valid: true,
    listingKey: listing.listingKey,
    modTime: listing.modTime,
    office: listing.office,
    uniqueId: listing.uniqueId,
    preview: previewOf(listing),
  };
}
