import { chunkString } from '../decode.js';
import type { FeedListing } from '../feed-listing.js';
import { ListingIssues } from '../issues.js';
import type { FeedContext, Issue } from '../types.js';
import { mapReaxmlListing } from './map-listing.js';
import { ReaxmlParser } from './parse-reaxml.js';

/**
 * Streams a REAXML feed: yields the listings mapped since the last yield, in feed order, after
 * each chunk of text. Issues that belong to no listing are pushed to feedIssues. Throws
 * FeedSyntaxError when the feed as a whole cannot be read; listings yielded before that stand.
 */
export async function* readReaxmlFeed(
  source: string | AsyncIterable<string>,
  feed: FeedContext,
  feedIssues: Issue[],
): AsyncGenerator<FeedListing[]> {
  let ready: FeedListing[] = [];
  let pending: ListingIssues | null = null;
  const parser = new ReaxmlParser({
    onIssue(issue, listingIndex) {
      if (listingIndex === null) {
        feedIssues.push(issue);
        return;
      }
      if (!pending || pending.listingIndex !== listingIndex) pending = new ListingIssues(listingIndex);
      pending.add(issue);
    },
    onListing({ node, index }) {
      const early: ListingIssues = pending?.listingIndex === index ? pending : new ListingIssues(index);
      pending = null;
      const mapped = mapReaxmlListing(node, index, feed, early);
      ready.push({ index, path: node.path, ...mapped });
    },
  });

  let sinceYield = 0;
  const chunks = typeof source === 'string' ? chunkString(source) : source;
  for await (const chunk of chunks) {
    parser.write(chunk);
    if (ready.length) {
      const batch = ready;
      ready = [];
      yield batch;
    }
    // Let other requests run while a large feed parses.
    if ((sinceYield += chunk.length) >= 1 << 20) {
      sinceYield = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  parser.close();
  if (ready.length) yield ready;
}
