import { chunkString } from '../decode.js';
import { type FeedListing, sourceFingerprint, sourceSalt } from '../feed-listing.js';
import { ListingIssues } from '../issues.js';
import type { FeedContext, Issue, ListingDelta } from '../types.js';
import { mapReaxmlListing, readIdentity } from './map-listing.js';
import { ReaxmlParser, reparseListing } from './parse-reaxml.js';

/**
 * Bump when a change to the REAXML mapping changes what an unchanged source maps to, so that
 * ingestion stops treating listings with a known source fingerprint as unchanged.
 */
export const REAXML_MAPPING_VERSION = 2; // 2: lotNumber, <Geocode> coordinates, identity elements holding markup

/**
 * Streams a REAXML feed: yields the listings read since the last yield, in feed order, after
 * each chunk of text. A light read (ingestion) keeps only each listing's identity and source
 * text and builds its tree when it is mapped; the dry run builds trees as it reads. Issues that belong to no listing are pushed to feedIssues. Throws
 * FeedSyntaxError when the feed as a whole cannot be read; listings yielded before that stand.
 */
export async function* readReaxmlFeed(
  source: string | AsyncIterable<string>,
  feed: FeedContext,
  feedIssues: Issue[],
  options: { light?: boolean } = {},
): AsyncGenerator<FeedListing[]> {
  const light = options.light ?? false;
  const salt = sourceSalt('reaxml', REAXML_MAPPING_VERSION, feed);
  let ready: FeedListing[] = [];
  let pending: ListingIssues | null = null;
  const parser = new ReaxmlParser(
    {
      onIssue(issue, listingIndex) {
        if (listingIndex === null) {
          feedIssues.push(issue);
          return;
        }
        if (!pending || pending.listingIndex !== listingIndex) pending = new ListingIssues(listingIndex);
        pending.add(issue);
      },
      onListing({ node, index, source: text, strippedOffsets }) {
        const issues: ListingIssues = pending?.listingIndex === index ? pending : new ListingIssues(index);
        pending = null;
        const { identity } = readIdentity(node, feed);
        let delta: ListingDelta | null | undefined;
        let hash: string | undefined;
        ready.push({
          index,
          path: node.path,
          identity,
          sourceHash: () => (hash ??= sourceFingerprint(salt, node.name, JSON.stringify(node.attrs), text)),
          issues,
          delta: () => {
            if (delta === undefined) {
              let tree = node;
              if (light) {
                const full = reparseListing(node.name, node.attrs, text, node.path, strippedOffsets);
                for (const issue of full.issues) issues.add({ ...issue, listingIndex: index });
                tree = full.node;
              }
              delta = mapReaxmlListing(tree, index, feed, issues).delta;
            }
            return delta;
          },
        });
      },
    },
    { trees: !light },
  );

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
