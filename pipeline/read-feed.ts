import type { FeedListing } from './feed-listing.js';
import { wholeText } from './json-document.js';
import { type FeedProject, readProjectDocument } from './project/read-project-feed.js';
import type { ReadOptions } from './reaxml/read-options.js';
import { readReaxmlFeed } from './reaxml/read-reaxml-feed.js';
import { readResoDocument } from './reso/read-reso-feed.js';
import type { FeedContext, FeedFormat, Issue } from './types.js';

/** What a feed yields as it is read: listings in feed order, and (project feeds) projects. */
export interface FeedBatch {
  listings: FeedListing[];
  projects: FeedProject[];
}

/**
 * Every format behind one reader. REAXML streams (batches as the text arrives); RESO and project
 * documents are JSON, read whole and yielded in one batch. Issues outside any listing go to
 * feedIssues. Throws FeedSyntaxError when the feed cannot be read. options.dryRun: a reader that
 * can also apply each listing as new where it reads it (FeedListing.dryRun); options.knownSources:
 * see ReadOptions.
 */
export async function* readFeed(
  format: FeedFormat,
  source: string | AsyncIterable<string>,
  feed: FeedContext,
  feedIssues: Issue[],
  options: ReadOptions = {},
): AsyncGenerator<FeedBatch> {
  if (format === 'reaxml') {
    for await (const listings of readReaxmlFeed(source, feed, feedIssues, options)) yield { listings, projects: [] };
    return;
  }
  const text = await wholeText(source);
  if (format === 'reso') yield { listings: readResoDocument(text, feed), projects: [] };
  else yield readProjectDocument(text, feed);
}
