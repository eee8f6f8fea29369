import { chunkString } from '../decode.js';
import { ListingIssues } from '../issues.js';
import { mergeListing } from '../merge.js';
import type { CanonicalListing, FeedContext, Issue } from '../types.js';
import { validateListing } from '../validate-listing.js';
import { mapReaxmlListing } from './map-listing.js';
import { ReaxmlParser } from './parse-reaxml.js';

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
 * anything: each listing is merged onto nothing, so it is validated as it would be stored new.
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
  let pending: ListingIssues | null = null;

  const parser = new ReaxmlParser({
    onIssue(issue, listingIndex) {
      if (listingIndex === null) {
        issues.push(issue);
        return;
      }
      if (!pending || pending.listingIndex !== listingIndex) pending = new ListingIssues(listingIndex);
      pending.add(issue);
    },
    onListing({ node, index }) {
      const early: ListingIssues = pending?.listingIndex === index ? pending : new ListingIssues(index);
      pending = null;
      const { delta, issues: listingIssues } = mapReaxmlListing(node, index, feed, early);
      counts.parsed += 1;
      let preview: CanonicalListing | null = null;
      if (delta) {
        preview = mergeListing(null, delta);
        validateListing(preview, listingIssues, node.path);
      }
      issues.push(...listingIssues.list);
      if (listingIssues.hasErrors || !preview) {
        counts.invalid += 1;
        return;
      }
      counts.valid += 1;
      const earlier = seen.get(preview.listingKey);
      if (earlier) {
        const newer = preview.modTime >= earlier.modTime;
        const loser = newer ? earlier.index : index;
        const winner = newer ? index : earlier.index;
        issues.push({
          level: 'warning',
          code: 'duplicate_listing',
          message: `the feed carries ${preview.office}/${preview.uniqueId} more than once; listing ${winner} (newer modTime) is kept`,
          listingIndex: loser,
          uniqueId: preview.uniqueId,
          path: node.path,
        });
        if (!newer) return;
        if (keepPreviews) listings[earlier.preview] = preview;
        seen.set(preview.listingKey, { index, modTime: preview.modTime, preview: earlier.preview });
        return;
      }
      seen.set(preview.listingKey, { index, modTime: preview.modTime, preview: listings.length });
      if (keepPreviews) listings.push(preview);
    },
  });

  let written = 0;
  const chunks = typeof source === 'string' ? chunkString(source) : source;
  for await (const chunk of chunks) {
    parser.write(chunk);
    // Let other requests run while a large feed parses.
    if ((written += chunk.length) >= 1 << 20) {
      written = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  parser.close();
  return { ok: counts.invalid === 0 && !issues.some((i) => i.level === 'error'), counts, issues, listings };
}
