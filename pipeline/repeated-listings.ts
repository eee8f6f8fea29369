import type { FeedListing } from './feed-listing.js';
import { listingKey } from './listing-key.js';

/**
 * The one rule for a listing a feed carries more than once, shared by the dry run and ingestion so
 * both flag the same records (docs/issue-codes.md, duplicate_listing): every copy after the first
 * in feed order gets a duplicate_listing warning at its own index and path, naming the first. The
 * copies are applied in feed order: one whose modTime is older than a copy applied before it is
 * stale_ignored, a newer or equal one wins (the dry run previews the winner).
 */
export class RepeatedListings {
  /** Each listing key's first position in the feed. */
  private readonly firstSeen = new Map<string, number>();

  /**
   * Notes a listing of the feed (in feed order); a repeat is warned about on its own issues.
   * Returns the position of the key's first copy when this one is a repeat, else undefined (also
   * for a listing without an identity, which has no key to repeat).
   */
  note(item: Pick<FeedListing, 'index' | 'path' | 'identity' | 'issues'>): number | undefined {
    const { identity } = item;
    if (!identity) return undefined;
    const key = listingKey(identity.office, identity.uniqueId);
    const first = this.firstSeen.get(key);
    if (first === undefined) {
      this.firstSeen.set(key, item.index);
      return undefined;
    }
    item.issues.add({
      level: 'warning',
      code: 'duplicate_listing',
      message: `the feed carries ${key} more than once (first as listing ${first}); the copies are applied in feed order, so this one is stale_ignored when its modTime is older than a copy before it and wins otherwise`,
      listingIndex: item.index,
      // Named even where ingestion does not map the listing (its source is the stored one's).
      uniqueId: identity.uniqueId,
      path: item.path,
    });
    return first;
  }
}
