import { refreshDirectory } from '../../db/directory.js';
import type { Db } from '../../db/knex.js';
import { storedSourceHashes } from '../../db/listings-store.js';
import { type OfficeReconcile, reconcileOffice } from '../../db/reconcile.js';
import type { UpsertAction } from '../../pipeline/apply-listing.js';
import type { FeedListing } from '../../pipeline/feed-listing.js';
import { FeedSyntaxError } from '../../pipeline/feed-syntax-error.js';
import { knownFingerprints } from '../../pipeline/known-fingerprints.js';
import { listingKey, officeOfKey } from '../../pipeline/listing-key.js';
import type { FeedProject } from '../../pipeline/project/read-project-feed.js';
import { readFeed } from '../../pipeline/read-feed.js';
import type { BreakerSettings } from '../../pipeline/reconcile.js';
import type { FeedContext, FeedFormat, Issue } from '../../pipeline/types.js';
import { type BatchOutcome, decideBatch, writeBatch } from './apply-batch.js';
import { applyProjects, type ProjectsOutcome } from './apply-projects.js';

/** The ingestion result (docs/ingestion.md). */
export interface IngestionResult {
  ok: boolean;
  counts: { parsed: number; valid: number; invalid: number };
  summary: Record<UpsertAction, number>;
  upserts: { listingKey: string; action: UpsertAction }[];
  reconcile?: {
    status: 'applied' | 'tripped' | 'skipped';
    reason?: string;
    archived: number;
    offices: OfficeReconcile[];
  };
  /** Project feeds only. */
  projects?: { counts: { parsed: number; valid: number; invalid: number }; summary: Record<UpsertAction, number>; upserts: ProjectsOutcome['upserts'] };
  issues: Issue[];
}

export interface IngestInput {
  feedId: string;
  format: FeedFormat;
  source: AsyncIterable<string>;
  context: FeedContext;
  mode: 'full' | 'incremental';
  /** Offices the sender may push for. */
  officeScope: readonly string[];
  /** Told the counts so far after each batch is applied. */
  onProgress?(progress: { parsed: number; applied: number; invalid: number }): Promise<void>;
}

const BATCH = 500;

/**
 * Live ingestion of one stored feed (docs/architecture.md, Ingestion): the same reader and per-listing steps as the
 * dry run, applied in batches against the store, then the full-mode reconcile per office. A feed
 * that is not well-formed keeps what was applied before the fault and never reconciles.
 */
export async function ingestFeed(db: Db, breaker: BreakerSettings, input: IngestInput): Promise<IngestionResult> {
  const issues: Issue[] = [];
  const counts = { parsed: 0, valid: 0, invalid: 0 };
  const summary: Record<UpsertAction, number> = { inserted: 0, updated: 0, unchanged: 0, stale_ignored: 0 };
  const upserts: IngestionResult['upserts'] = [];
  const scope = new Set(input.officeScope);
  /**
   * Full mode: the keys that appeared, valid or not, per office in scope; and project keys
   * likewise. Only the reconcile reads them, so an incremental feed does not collect them.
   */
  const full = input.mode === 'full';
  const present = new Map<string, Set<string>>();
  const presentProjects = new Map<string, Set<string>>();
  const projectItems: FeedProject[] = [];
  const notInScope = (office: string, path: string, issues: FeedProject['issues']) => {
    issues.error('office_not_in_scope', `office "${office}" is not one this feed may push for (${[...scope].join(', ')}); not stored`, path);
  };
  const note = (map: Map<string, Set<string>>, office: string, key: string) => {
    const keys = map.get(office) ?? new Set<string>();
    keys.add(key);
    map.set(office, keys);
    if (!present.has(office)) present.set(office, new Set());
  };
  let pending: FeedListing[] = [];
  /** Each listing key's first position in the feed, so a repeat is reported. */
  const firstSeen = new Map<string, number>();
  /** Offices whose stored listings this feed changed: their directory rows are rebuilt at the end. */
  const changedOffices = new Set<string>();
  /** The pending batch holds a key an earlier batch carried. */
  let pendingRepeats = false;
  /**
   * Two batches in flight while the next is read: the last one is written while the one after it
   * is decided (mapped, hashed, compared), so mapping overlaps the database's work. Writes stay one
   * at a time, in feed order. A batch with a key an earlier batch carried is decided only once that
   * batch is written, so it sees what was written.
   */
  let written: Promise<void> = Promise.resolve();
  let writtenBefore: Promise<void> = Promise.resolve();

  const record = async (batch: FeedListing[], outcome: BatchOutcome) => {
    for (const item of batch) issues.push(...item.issues.list);
    counts.invalid += outcome.invalid;
    counts.valid += outcome.upserts.length;
    for (const u of outcome.upserts) {
      upserts.push(u);
      summary[u.action] += 1;
      if (u.action === 'inserted' || u.action === 'updated') changedOffices.add(officeOfKey(u.listingKey));
    }
    await input.onProgress?.({ parsed: counts.parsed, applied: counts.valid, invalid: counts.invalid });
  };
  const flush = async () => {
    const batch = pending;
    const repeats = pendingRepeats;
    pending = [];
    pendingRepeats = false;
    await writtenBefore;
    const previous = written;
    if (repeats) await previous;
    const deciding = decideBatch(db, batch);
    deciding.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    writtenBefore = previous;
    written = (async () => {
      await previous; // first, so that a failure here never leaves an earlier write running
      const decided = await deciding;
      await record(batch, await writeBatch(db, decided));
    })();
    written.catch(() => undefined); // awaited at a later flush or at the end
  };

  let syntaxError: FeedSyntaxError | null = null;
  try {
    // Read on the reading threads, a large feed's listings whose sources the store has are not mapped there.
    const knownSources = async () => knownFingerprints(await storedSourceHashes(db, input.officeScope));
    for await (const batch of readFeed(input.format, input.source, input.context, issues, { knownSources })) {
      for (const item of batch.projects) {
        if (item.identity && !scope.has(item.identity.office)) notInScope(item.identity.office, item.path, item.issues);
        else if (full && item.identity) note(presentProjects, item.identity.office, listingKey(item.identity.office, item.identity.uniqueId));
        projectItems.push(item);
      }
      for (const item of batch.listings) {
        counts.parsed += 1;
        if (item.identity && !scope.has(item.identity.office)) {
          notInScope(item.identity.office, item.path, item.issues);
          counts.invalid += 1;
          issues.push(...item.issues.list);
          continue;
        }
        if (item.identity) {
          const key = listingKey(item.identity.office, item.identity.uniqueId);
          if (full) note(present, item.identity.office, key);
          const first = firstSeen.get(key);
          if (first === undefined) firstSeen.set(key, item.index);
          else {
            if (pending.length === 0 || first < pending[0].index) pendingRepeats = true;
            item.issues.warning(
              'duplicate_listing',
              `the feed carries ${key} more than once (first as listing ${first}); both are applied in feed order, so this one is stale_ignored when its modTime is older and wins otherwise`,
              item.path,
            );
          }
        }
        pending.push(item);
        if (pending.length >= BATCH) await flush();
      }
    }
  } catch (err) {
    if (!(err instanceof FeedSyntaxError)) {
      await written.catch(() => undefined); // never leave a write running behind a failed job
      throw err;
    }
    syntaxError = err;
    issues.push({
      level: 'error',
      code: 'feed_not_well_formed',
      message: err.message,
      listingIndex: null,
      uniqueId: null,
      path: `line ${err.line}, column ${err.column}`,
    });
  }
  if (pending.length) await flush();
  await written;

  const result: IngestionResult = { ok: false, counts, summary, upserts, issues };
  if (input.format === 'project') {
    const outcome = await applyProjects(db, projectItems);
    const projectSummary: Record<UpsertAction, number> = { inserted: 0, updated: 0, unchanged: 0, stale_ignored: 0 };
    for (const u of outcome.upserts) projectSummary[u.action] += 1;
    for (const item of projectItems) issues.push(...item.issues.list);
    result.projects = {
      counts: { parsed: projectItems.length, valid: outcome.upserts.length, invalid: outcome.invalid },
      summary: projectSummary,
      upserts: outcome.upserts,
    };
  }
  if (full) {
    if (syntaxError) result.reconcile = { status: 'skipped', reason: 'the feed is not well-formed', archived: 0, offices: [] };
    else {
      const offices: OfficeReconcile[] = [];
      for (const [office, keys] of [...present].sort(([a], [b]) => a.localeCompare(b))) {
        offices.push(
          await reconcileOffice(db, {
            office,
            scope: input.format === 'project' ? 'projects' : 'listings',
            presentKeys: keys,
            presentProjectKeys: presentProjects.get(office),
            feedId: input.feedId,
            breaker,
          }),
        );
      }
      for (const o of offices) if (o.archived > 0) changedOffices.add(o.office);
      const tripped = offices.some((o) => o.tripped);
      result.reconcile = { status: tripped ? 'tripped' : 'applied', archived: offices.reduce((n, o) => n + o.archived, 0), offices };
      if (offices.length === 0) Object.assign(result.reconcile, { status: 'skipped', reason: 'the feed has no listings for any office it may push for' });
    }
  }
  await refreshDirectory(db, changedOffices);
  result.ok = !syntaxError && counts.invalid === 0 && (result.projects?.counts.invalid ?? 0) === 0 && !issues.some((i) => i.level === 'error');
  return result;
}
