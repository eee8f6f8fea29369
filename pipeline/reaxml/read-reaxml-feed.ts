import type { FeedListing } from '../feed-listing.js';
import type { FeedContext, Issue } from '../types.js';
import { readReaxmlHere } from './listing-reader.js';
import type { ReadOptions } from './read-options.js';
import { readReaxmlSplit } from './read-split.js';
import { readThreads } from './read-threads.js';

export { REAXML_MAPPING_VERSION } from './listing-reader.js';

/**
 * Streams a REAXML feed: yields its listings in feed order, in batches as the text arrives.
 * Issues that belong to no listing are pushed to feedIssues. Throws FeedSyntaxError when the feed
 * as a whole cannot be read; the listings yielded before that stand. A large feed is read on the
 * reading threads when the process has them (READ_THREADS), with the same result; there, a dry
 * run (options.dryRun) also applies each listing as new where it is read (FeedListing.dryRun).
 */
export function readReaxmlFeed(
  source: string | AsyncIterable<string>,
  feed: FeedContext,
  feedIssues: Issue[],
  options: ReadOptions = {},
): AsyncGenerator<FeedListing[]> {
  const threads = readThreads();
  return threads ? readReaxmlSplit(source, feed, feedIssues, threads.pool, { ...threads.options, ...options }) : readReaxmlHere(source, feed, feedIssues);
}
