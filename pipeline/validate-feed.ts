import type { Preview } from './applied.js';
import { dryRunOutcome, isEarlier } from './apply-listing.js';
import { FeedTally } from './feed-tally.js';
import { applyProject } from './project/apply-project.js';
import { readFeed } from './read-feed.js';
import type { CanonicalListing, CanonicalProject, FeedContext, FeedFormat, Issue } from './types.js';

export interface ValidationResult {
  ok: boolean;
  counts: { parsed: number; valid: number; invalid: number };
  issues: Issue[];
  listings: CanonicalListing[];
  /** Project feeds: the projects' counts and canonical previews. */
  projects?: { counts: { parsed: number; valid: number; invalid: number }; previews: CanonicalProject[] };
  /** Present (true) when previews or issues past the caps were left out; counts and ok cover everything. */
  truncated?: true;
}

/**
 * Where listing previews go as they are produced: add returns the preview's position; replace
 * puts a later duplicate that wins in an earlier preview's place. The default keeps them in the
 * result's listings; the dry-run endpoint spools them to a file instead (api/preview-spool.ts), so
 * memory does not grow with the feed.
 */
export interface PreviewSink {
  add(preview: Preview): number;
  replace(position: number, preview: Preview): void;
}

export interface ValidateOptions {
  /** Default reaxml. */
  format?: FeedFormat;
  /** Keep canonical previews in the result (the dry-run endpoint does; a benchmark may not). */
  keepPreviews?: boolean;
  /** At most this many listing (and project) previews are kept; default no limit. */
  maxPreviews?: number;
  /** At most this many issues are kept; default no limit. */
  maxIssues?: number;
  /** Listing previews go here instead of the result's listings (which is then empty). */
  previewSink?: PreviewSink;
}

/**
 * Parses, maps and validates a feed of any format exactly as live ingestion does, without storing
 * anything: each listing (and project) is applied to nothing, so it is validated as it would be
 * stored new. Throws FeedSyntaxError when the feed as a whole cannot be read.
 */
export async function validateFeed(source: string | AsyncIterable<string>, feed: FeedContext, options: ValidateOptions = {}): Promise<ValidationResult> {
  const keepPreviews = options.keepPreviews ?? true;
  const maxPreviews = options.maxPreviews ?? Infinity;
  const maxIssues = options.maxIssues ?? Infinity;
  let truncated = false;
  /** Keeps a preview (add, given how many are kept) unless previews are off or the cap is reached (then says so): its position, or -1. */
  const keep = (kept: number, add: () => number): number => {
    if (!keepPreviews) return -1;
    if (kept < maxPreviews) return add();
    truncated = true;
    return -1;
  };
  const issues: Issue[] = [];
  let sawError = false;
  /** Keeps issues up to the cap (the reader adds the feed's own issues to the same list); past it, only whether one was an error. */
  const report = (found: Issue[]) => {
    for (const issue of found) {
      if (issue.level === 'error') sawError = true;
      if (issues.length < maxIssues) issues.push(issue);
      else truncated = true;
    }
  };
  const listings: CanonicalListing[] = [];
  const sink: PreviewSink = options.previewSink ?? {
    add: (preview) => listings.push(preview.listing()) - 1,
    replace: (position, preview) => {
      listings[position] = preview.listing();
    },
  };
  /** Per identity: where its preview is, and the modTime that won so far. */
  const seen = new Map<string, { modTime: string; preview: number }>();
  /** Counted, and repeats flagged, as ingestion counts and flags them. */
  const tally = new FeedTally();

  const format = options.format ?? 'reaxml';
  const projects = { counts: { parsed: 0, valid: 0, invalid: 0 }, previews: [] as CanonicalProject[] };
  for await (const batch of readFeed(format, source, feed, issues, { dryRun: { hash: keepPreviews } })) {
    for (const item of batch.projects) {
      projects.counts.parsed += 1;
      report(item.issues.list);
      const applied = applyProject(null, item.draft);
      if (applied.action === 'invalid') projects.counts.invalid += 1;
      else {
        projects.counts.valid += 1;
        keep(projects.previews.length, () => projects.previews.push(applied.project) - 1);
      }
    }
    for (const item of batch.listings) {
      const preview = item.dryRun ?? dryRunOutcome(item, keepPreviews);
      tally.read(item);
      report(item.issues.list);
      if (!preview.valid) {
        tally.invalid();
        continue;
      }
      tally.valid();
      const earlier = seen.get(preview.listingKey);
      if (!earlier) {
        seen.set(preview.listingKey, { modTime: preview.modTime, preview: keep(seen.size, () => sink.add(preview.preview)) });
        continue;
      }
      // As ingestion applies the copies in feed order: an older one is stale; a newer or equal one wins.
      if (isEarlier(preview.modTime, earlier.modTime)) continue;
      if (earlier.preview >= 0) sink.replace(earlier.preview, preview.preview);
      seen.set(preview.listingKey, { modTime: preview.modTime, preview: earlier.preview });
    }
  }
  const ok = tally.ok({ readToEnd: true, projects: projects.counts, issues, sawError });
  const { counts } = tally;
  if (issues.length > maxIssues) {
    issues.length = maxIssues;
    truncated = true;
  }
  return { ok, counts, issues, listings, ...(format === 'project' ? { projects } : {}), ...(truncated ? { truncated: true as const } : {}) };
}
