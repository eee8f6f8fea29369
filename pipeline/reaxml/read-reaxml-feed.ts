import { chunkString } from '../decode.js';
import { type FeedListing, sourceFingerprint, sourceSalt } from '../feed-listing.js';
import { ListingIssues } from '../issues.js';
import type { FeedContext, Issue, ListingDelta } from '../types.js';
import { mapReaxmlListing, readIdentity } from './map-listing.js';
import { ReaxmlParser } from './parse-reaxml.js';

/**
 * Bump when a change to the REAXML mapping changes what an unchanged source maps to, so that
 * ingestion stops treating listings with a known source fingerprint as unchanged.
 */
export const REAXML_MAPPING_VERSION = 2; // 2: lotNumber, <Geocode> coordinates, identity elements holding markup

/**
 * Streams a REAXML feed: yields the listings read since the last yield, in feed order, after
 * each chunk of text. Each listing is read once: its element tree is built as the text arrives
 * and kept with its source text, which its fingerprint is taken over; mapping the tree is left
 * to the first delta() call, so ingestion maps only listings whose fingerprint it does not know.
 * Issues that belong to no listing are pushed to feedIssues. Throws FeedSyntaxError when the feed
 * as a whole cannot be read; listings yielded before that stand.
 */
export async function* readReaxmlFeed(source: string | AsyncIterable<string>, feed: FeedContext, feedIssues: Issue[]): AsyncGenerator<FeedListing[]> {
  const salt = sourceSalt('reaxml', REAXML_MAPPING_VERSION, feed);
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
    onListing({ node, index, source: text }) {
      const issues: ListingIssues = pending?.listingIndex === index ? pending : new ListingIssues(index);
      pending = null;
      const read = readIdentity(node, feed);
      const { identity } = read;
      let delta: ListingDelta | null | undefined;
      let hash: string | undefined;
      ready.push({
        index,
        path: node.path,
        identity,
        sourceHash: () => (hash ??= sourceFingerprint(salt, node.name, JSON.stringify(node.attrs), text)),
        issues,
        delta: () => {
          if (delta === undefined) delta = mapReaxmlListing(node, index, feed, issues, read).delta;
          return delta;
        },
      });
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
