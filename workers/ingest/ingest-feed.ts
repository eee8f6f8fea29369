import type { Db } from '../../db/knex.js';
import { storedSourceHashes } from '../../db/listings-store.js';
import { type OfficeReconcile, reconcileOffice } from '../../db/reconcile.js';
import type { UpsertAction } from '../../pipeline/applied.js';
import type { FeedListing } from '../../pipeline/feed-listing.js';
import { FeedSyntaxError } from '../../pipeline/feed-syntax-error.js';
import { type FeedCounts, FeedTally } from '../../pipeline/feed-tally.js';
import { knownFingerprints } from '../../pipeline/known-fingerprints.js';
import { listingKey, officeOfKey } from '../../pipeline/listing-key.js';
import type { FeedProject } from '../../pipeline/project/read-project-feed.js';
import { readFeed } from '../../pipeline/read-feed.js';
import type { BreakerSettings } from '../../pipeline/reconcile.js';
import type { FeedContext, FeedFormat, Issue } from '../../pipeline/types.js';
import { type BatchOutcome, decideBatch, type StatusChange, writeBatch } from './apply-batch.js';
import { applyProjects, type ProjectsOutcome } from './apply-projects.js';
import { BatchPipeline } from './batch-pipeline.js';

/** The ingestion result (docs/ingestion.md). */
export interface IngestionResult {
  ok: boolean;
  counts: FeedCounts;
  summary: Record<UpsertAction, number>;
  upserts: { listingKey: string; action: UpsertAction }[];
  /** Stored listings whose status the feed changed, in feed order. */
  statusChanges: StatusChange[];
  reconcile?: {
    status: 'applied' | 'tripped' | 'skipped';
    reason?: string;
    archived: number;
    offices: OfficeReconcile[];
  };
  /** Project feeds only. */
  projects?: { counts: FeedCounts; summary: Record<UpsertAction, number>; upserts: ProjectsOutcome['upserts'] };
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

/** The keys a full feed carried, valid or not, per office in scope (only the reconcile reads them). */
type PresentKeys = Map<string, Set<string>>;

/** A feed ingested: its result, and the offices whose stored listings it changed (their directory rows are to be refreshed). */
export interface IngestedFeed {
  result: IngestionResult;
  changedOffices: string[];
}

/**
 * Live ingestion of one stored feed (docs/architecture.md, Ingestion), in the steps the ingestion
 * rules name: read the feed and apply its listings in batches (the same reader and per-listing
 * steps as the dry run), apply its projects, reconcile a full feed per office. The directory is
 * brought up to date by the caller once the result is stored (processFeed). A feed that is not
 * well-formed keeps what was applied before the fault and never reconciles.
 */
export async function ingestFeed(db: Db, breaker: BreakerSettings, input: IngestInput): Promise<IngestedFeed> {
  const issues: Issue[] = [];
  /** Counted, and repeats flagged, as the dry run counts and flags them. */
  const tally = new FeedTally();
  const result: IngestionResult = {
    ok: false,
    counts: tally.counts,
    summary: { inserted: 0, updated: 0, unchanged: 0, stale_ignored: 0 },
    upserts: [],
    statusChanges: [],
    issues,
  };
  /** Offices whose stored listings this feed changed: their directory rows are rebuilt after it. */
  const changedOffices = new Set<string>();
  const { syntaxError, present, presentProjects, projectItems } = await applyListings(db, input, { result, tally, changedOffices });
  if (input.format === 'project') result.projects = await applyProjectItems(db, projectItems, issues);
  if (input.mode === 'full') {
    result.reconcile = syntaxError
      ? { status: 'skipped', reason: 'the feed is not well-formed', archived: 0, offices: [] }
      : await reconcileFullFeed(db, breaker, input, present, presentProjects);
    for (const o of result.reconcile.offices) if (o.archived > 0) changedOffices.add(o.office);
  }
  result.ok = tally.ok({ readToEnd: !syntaxError, projects: result.projects?.counts, issues });
  return { result, changedOffices: [...changedOffices] };
}

/** What a feed's listings are counted into: the result, its tally, the offices whose stored listings changed. */
interface FeedInto {
  result: IngestionResult;
  tally: FeedTally;
  changedOffices: Set<string>;
}

/**
 * Reads the feed and applies its listings in batches of BATCH (two in flight, BatchPipeline),
 * counting them into the result; a listing for an office out of scope is refused, a repeated key
 * warned about. Returns what the later steps need: the feed's syntax error if any, the keys present
 * per office (full feeds) and the projects read.
 */
async function applyListings(db: Db, input: IngestInput, into: FeedInto) {
  const { result, tally } = into;
  const { issues } = result;
  const scope = new Set(input.officeScope);
  const full = input.mode === 'full';
  const present: PresentKeys = new Map();
  const presentProjects: PresentKeys = new Map();
  const projectItems: FeedProject[] = [];
  /** Refuses an item of an office out of scope; the issue names the item's uniqueId like any other. */
  const notInScope = (identity: { office: string; uniqueId: string }, path: string, itemIssues: FeedProject['issues']) => {
    itemIssues.stampUniqueId(identity.uniqueId);
    itemIssues.error('office_not_in_scope', `office "${identity.office}" is not one this feed may push for (${[...scope].join(', ')}); not stored`, path);
  };
  const note = (map: PresentKeys, office: string, key: string) => {
    const keys = map.get(office) ?? new Set<string>();
    keys.add(key);
    map.set(office, keys);
    if (!present.has(office)) present.set(office, new Set());
  };
  const batches = feedBatches(db, input, into);
  let pending: FeedListing[] = [];
  /** The pending batch holds a key an earlier batch carried. */
  let pendingRepeats = false;
  const flush = async () => {
    const batch = pending;
    const afterEarlier = pendingRepeats;
    pending = [];
    pendingRepeats = false;
    await batches.add(batch, { afterEarlier });
  };

  let syntaxError: FeedSyntaxError | null = null;
  try {
    // Read on the reading threads, a large feed's listings whose sources the store has are not mapped there.
    const knownSources = async () => knownFingerprints(await storedSourceHashes(db, input.officeScope));
    for await (const batch of readFeed(input.format, input.source, input.context, issues, { knownSources })) {
      for (const item of batch.projects) {
        if (item.identity && !scope.has(item.identity.office)) notInScope(item.identity, item.path, item.issues);
        else if (full && item.identity) note(presentProjects, item.identity.office, listingKey(item.identity.office, item.identity.uniqueId));
        projectItems.push(item);
      }
      for (const item of batch.listings) {
        if (item.identity && !scope.has(item.identity.office)) {
          notInScope(item.identity, item.path, item.issues);
          tally.read(item, true);
          issues.push(...item.issues.list);
          continue;
        }
        if (item.identity && full) note(present, item.identity.office, listingKey(item.identity.office, item.identity.uniqueId));
        const first = tally.read(item);
        if (first !== undefined && (pending.length === 0 || first < pending[0].index)) pendingRepeats = true;
        pending.push(item);
        if (pending.length >= BATCH) await flush();
      }
    }
  } catch (err) {
    if (!(err instanceof FeedSyntaxError)) {
      await batches.settle(); // never leave a write running behind a failed job
      throw err;
    }
    syntaxError = err;
    issues.push(notWellFormed(err));
  }
  if (pending.length) await flush();
  await batches.drain();
  return { syntaxError, present, presentProjects, projectItems };
}

/**
 * The feed's batches of listings, decided and written two in flight (BatchPipeline), each counted
 * into the result as it is written: its issues, valid and invalid listings, status changes and
 * upserts, and the offices whose stored listings changed; the caller's progress is told after each.
 */
function feedBatches(db: Db, input: IngestInput, { result, tally, changedOffices }: FeedInto) {
  const { counts, summary, upserts, issues } = result;
  return new BatchPipeline<FeedListing, Awaited<ReturnType<typeof decideBatch>>, BatchOutcome>({
    decide: (batch) => decideBatch(db, batch),
    write: (decided) => writeBatch(db, decided, `feed:${input.feedId}`),
    record: async (batch, outcome) => {
      for (const item of batch) issues.push(...item.issues.list);
      tally.invalid(outcome.invalid);
      tally.valid(outcome.upserts.length);
      result.statusChanges.push(...outcome.statusChanges);
      for (const u of outcome.upserts) {
        upserts.push(u);
        summary[u.action] += 1;
        if (u.action === 'inserted' || u.action === 'updated') changedOffices.add(officeOfKey(u.listingKey));
      }
      await input.onProgress?.({ parsed: counts.parsed, applied: counts.valid, invalid: counts.invalid });
    },
  });
}

/** The feed-level error of a feed that is not well-formed, where the reader stopped. */
function notWellFormed(err: FeedSyntaxError): Issue {
  return {
    level: 'error',
    code: 'feed_not_well_formed',
    message: err.message,
    listingIndex: null,
    uniqueId: null,
    path: `line ${err.line}, column ${err.column}`,
  };
}

/** The projects of a project feed, applied once its listings are (their issues joined to the feed's). */
async function applyProjectItems(db: Db, projectItems: FeedProject[], issues: Issue[]): Promise<NonNullable<IngestionResult['projects']>> {
  const outcome = await applyProjects(db, projectItems);
  const summary: Record<UpsertAction, number> = { inserted: 0, updated: 0, unchanged: 0, stale_ignored: 0 };
  for (const u of outcome.upserts) summary[u.action] += 1;
  for (const item of projectItems) issues.push(...item.issues.list);
  return { counts: { parsed: projectItems.length, valid: outcome.upserts.length, invalid: outcome.invalid }, summary, upserts: outcome.upserts };
}

/** A full feed's reconcile, office by office in a fixed order (each behind the circuit breaker). */
async function reconcileFullFeed(
  db: Db,
  breaker: BreakerSettings,
  input: IngestInput,
  present: PresentKeys,
  presentProjects: PresentKeys,
): Promise<NonNullable<IngestionResult['reconcile']>> {
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
  if (offices.length === 0) return { status: 'skipped', reason: 'the feed has no listings for any office it may push for', archived: 0, offices };
  const tripped = offices.some((o) => o.tripped);
  return { status: tripped ? 'tripped' : 'applied', archived: offices.reduce((n, o) => n + o.archived, 0), offices };
}
