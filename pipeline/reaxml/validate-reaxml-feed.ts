import { applyListing, isEarlier } from '../apply-listing.js';
import type { CanonicalListing, FeedContext, Issue } from '../types.js';
import { readReaxmlFeed } from './read-reaxml-feed.js';

export interface ValidationResult {
  ok: boolean;
  counts: { parsed: number; valid: number; invalid: number };
  issues: Issue[];
  listings: CanonicalListing[];
}

export interface ValidateOptions {
  /** Keep canonical previews in the result (the dry-run endpoint does; a benchmark may not). */
  keepPreviews?: boolean;
}

/**
 * Parses, maps and validates a REAXML feed exactly as live ingestion does, without storing
 * anything: each listing is applied to nothing, so it is validated as it would be stored new.
 * Throws FeedSyntaxError when the feed as a whole cannot be read.
 */
export async function validateReaxmlFeed(
  source: string | AsyncIterable<string>,
  feed: FeedContext,
  options: ValidateOptions = {},
): Promise<ValidationResult> {
  const keepPreviews = options.keepPreviews ?? true;
  const issues: Issue[] = [];
  const listings: CanonicalListing[] = [];
  const counts = { parsed: 0, valid: 0, invalid: 0 };
  /** Per identity: where its preview is, and the modTime that won so far. */
  const seen = new Map<string, { index: number; modTime: string; preview: number }>();

  for await (const batch of readReaxmlFeed(source, feed, issues)) {
    for (const item of batch) {
      counts.parsed += 1;
      const applied = applyListing(null, item);
      issues.push(...item.issues.list);
      if (applied.action === 'invalid') {
        counts.invalid += 1;
        continue;
      }
      counts.valid += 1;
      const preview = applied.listing;
      const earlier = seen.get(preview.listingKey);
      if (!earlier) {
        seen.set(preview.listingKey, { index: item.index, modTime: preview.modTime, preview: listings.length });
        if (keepPreviews) listings.push(preview);
        continue;
      }
      const newer = !isEarlier(preview.modTime, earlier.modTime);
      const [loser, winner] = newer ? [earlier.index, item.index] : [item.index, earlier.index];
      issues.push({
        level: 'warning',
        code: 'duplicate_listing',
        message: `the feed carries ${preview.office}/${preview.uniqueId} more than once; listing ${winner} (newer modTime) is kept`,
        listingIndex: loser,
        uniqueId: preview.uniqueId,
        path: item.path,
      });
      if (!newer) continue;
      if (keepPreviews) listings[earlier.preview] = preview;
      seen.set(preview.listingKey, { index: item.index, modTime: preview.modTime, preview: earlier.preview });
    }
  }
  return { ok: counts.invalid === 0 && !issues.some((i) => i.level === 'error'), counts, issues, listings };
}
