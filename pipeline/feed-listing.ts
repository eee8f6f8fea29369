import type { ListingIssues } from './issues.js';
import type { ListingDelta } from './types.js';

/** One listing of a feed, mapped to a canonical delta (not yet merged with anything). */
export interface FeedListing {
  /** 0-based position among the feed's listings. */
  index: number;
  path: string;
  /** Present whenever the record names its office and uniqueId, valid or not. */
  identity: { office: string; uniqueId: string } | null;
  /** null when the record cannot be identified or dated. */
  delta: ListingDelta | null;
  issues: ListingIssues;
}
