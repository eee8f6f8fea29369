import type { FeedListing } from '../feed-listing.js';
import type { FeedContext, Issue } from '../types.js';
import { readReaxmlHere } from './listing-reader.js';
import { readReaxmlSplit } from './read-split.js';
import { readThreads } from './read-threads.js';

export { REAXML_MAPPING_VERSION } from './listing-reader.js';

/**
 * Streams a REAXML feed: yields its listings in feed order, in batches as the text arrives.
 * Issues that belong to no listing are pushed to feedIssues. Throws FeedSyntaxError when the feed
 * as a whole cannot be read; the listings yielded before that stand. A large feed is read on the
 * reading threads when the process has them (READ_THREADS), with the same result.
 */
export function readReaxmlFeed(source: string | AsyncIterable<string>, feed: FeedContext, feedIssues: Issue[]): AsyncGenerator<FeedListing[]> {
  const threads = readThreads();
  return threads ? readReaxmlSplit(source, feed, feedIssues, threads.pool, threads.options) : readReaxmlHere(source, feed, feedIssues);
}
