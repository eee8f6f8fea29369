import type { FeedListing } from './feed-listing.js';
import { RepeatedListings } from './repeated-listings.js';
import type { Issue } from './types.js';

/** How many listings (or projects) a feed carried, and how many of them were stored or refused. */
export interface FeedCounts {
  parsed: number;
  valid: number;
  invalid: number;
}

/**
 * A feed's listings counted the one way the dry run and ingestion both report them (so a dry run's
 * counts and flags are ingestion's): each listing read is parsed, in feed order; a repeat of a key
 * read before is warned about by RepeatedListings' rule; each then ends valid (stored, or previewed)
 * or invalid (refused). The feed is ok when it was read to its end and nothing in it was invalid or
 * an error.
 */
export class FeedTally {
  readonly counts: FeedCounts = { parsed: 0, valid: 0, invalid: 0 };
  private readonly repeats = new RepeatedListings();

  /**
   * A listing read. Unless it is refused before it is looked at (`refused`: ingestion's office out of
   * scope), a repeat is warned about on its issues. Returns the position of its key's first copy when
   * it is a repeat.
   */
  read(item: Pick<FeedListing, 'index' | 'path' | 'identity' | 'issues'>, refused = false): number | undefined {
    this.counts.parsed += 1;
    if (refused) {
      this.counts.invalid += 1;
      return undefined;
    }
    return this.repeats.note(item);
  }

  valid(n = 1): void {
    this.counts.valid += n;
  }

  invalid(n = 1): void {
    this.counts.invalid += n;
  }

  /** Read to its end, no listing or project invalid, no issue an error (`sawError`: one past a cap on the issues kept). */
  ok(feed: { readToEnd: boolean; projects?: FeedCounts; issues: readonly Issue[]; sawError?: boolean }): boolean {
    return (
      feed.readToEnd && this.counts.invalid === 0 && (feed.projects?.invalid ?? 0) === 0 && !feed.sawError && !feed.issues.some((i) => i.level === 'error')
    );
  }
}
