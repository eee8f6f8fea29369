/**
 * What the mapping produces for a feed, as lines of text, for the equivalence test: for every
 * listing, read both ways (as the dry run reads, and as ingestion does: fingerprint first), its
 * source fingerprint, its canonical record as stored new (JSON, in the record's own key order, with its
 * content hash) and its issues; then each record merged onto the one before it, as an update of a
 * stored listing. RESO and project documents give their records the same way.
 */
import { applyListing } from '../../pipeline/apply-listing.js';
import { mergeListing } from '../../pipeline/merge.js';
import { applyProject } from '../../pipeline/project/apply-project.js';
import { readFeed } from '../../pipeline/read-feed.js';
import type { CanonicalListing, FeedContext, FeedFormat, Issue } from '../../pipeline/types.js';

export async function mappingOutputs(format: FeedFormat, text: string, context: FeedContext): Promise<string[]> {
  const lines: string[] = [];
  const feedIssues: Issue[] = [];
  for (const light of format === 'reaxml' ? [false, true] : [false]) {
    let previous: CanonicalListing | null = null;
    try {
      for await (const batch of readFeed(format, text, context, feedIssues)) {
        for (const project of batch.projects) {
          const applied = applyProject(null, project.draft);
          lines.push(`project ${JSON.stringify(applied)} ${JSON.stringify(project.issues.list)}`);
        }
        for (const item of batch.listings) {
          const fingerprint = light ? item.sourceHash() : '';
          const applied = applyListing(null, item);
          lines.push(`${light ? 'light' : 'full'} ${item.index} ${fingerprint} ${JSON.stringify(applied)} ${JSON.stringify(item.issues.list)}`);
          const delta = item.delta();
          if (delta && previous) lines.push(`merged ${JSON.stringify(mergeListing(previous, delta))}`);
          if (applied.action !== 'invalid') previous = applied.listing;
        }
      }
    } catch (err) {
      lines.push(`error ${(err as Error).message}`);
    }
  }
  lines.push(`feed ${JSON.stringify(feedIssues)}`);
  return lines;
}
