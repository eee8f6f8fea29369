import { refreshDirectory } from '../../db/directory.js';
import type { Db } from '../../db/knex.js';
import { reconcileOffice, type OfficeReconcile } from '../../db/reconcile.js';
import type { UpsertAction } from '../../pipeline/apply-listing.js';
import type { FeedListing } from '../../pipeline/feed-listing.js';
import { FeedSyntaxError } from '../../pipeline/feed-syntax-error.js';
import { listingKey, officeOfKey } from '../../pipeline/listing-key.js';
import { readReaxmlFeed } from '../../pipeline/reaxml/read-reaxml-feed.js';
import type { BreakerSettings } from '../../pipeline/reconcile.js';
import type { FeedContext, Issue } from '../../pipeline/types.js';
import { applyBatch } from './apply-batch.js';

/** SPEC.md's ingestion result. */
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
  issues: Issue[];
}

export interface IngestInput {
  feedId: string;
  source: AsyncIterable<string>;
  context: FeedContext;
  mode: 'full' | 'incremental';
  /** Offices the sender may push for. */
  officeScope: readonly string[];
}

const BATCH = 500;

/**
 * Live ingestion of one stored feed (DESIGN.md §5): the same reader and per-listing steps as the
 * dry run, applied in batches against the store, then the full-mode reconcile per office. A feed
 * that is not well-formed keeps what was applied before the fault and never reconciles.
 */
export async function ingestFeed(db: Db, breaker: BreakerSettings, input: IngestInput): Promise<IngestionResult> {
  const issues: Issue[] = [];
  const counts = { parsed: 0, valid: 0, invalid: 0 };
  const summary: Record<UpsertAction, number> = { inserted: 0, updated: 0, unchanged: 0, stale_ignored: 0 };
  const upserts: IngestionResult['upserts'] = [];
  const scope = new Set(input.officeScope);
  /** Keys that appeared, valid or not, per office in scope. */
  const present = new Map<string, Set<string>>();
  let pending: FeedListing[] = [];
  /** Offices whose stored listings this feed changed: their directory rows are rebuilt at the end. */
  const changedOffices = new Set<string>();
  /** The batch being applied while the next one is read: one at a time, in feed order. */
  let applying: Promise<void> = Promise.resolve();

  const apply = async (batch: FeedListing[]) => {
    const outcome = await applyBatch(db, batch);
    for (const item of batch) issues.push(...item.issues.list);
    counts.invalid += outcome.invalid;
    counts.valid += outcome.upserts.length;
    for (const u of outcome.upserts) {
      upserts.push(u);
      summary[u.action] += 1;
      if (u.action === 'inserted' || u.action === 'updated') changedOffices.add(officeOfKey(u.listingKey));
    }
  };
  const flush = async () => {
    const batch = pending;
    pending = [];
    await applying;
    applying = apply(batch);
    applying.catch(() => undefined); // awaited at the next flush; not an unhandled rejection meanwhile
  };

  let syntaxError: FeedSyntaxError | null = null;
  try {
    for await (const listings of readReaxmlFeed(input.source, input.context, issues, { light: true })) {
      for (const item of listings) {
        counts.parsed += 1;
        if (item.identity && !scope.has(item.identity.office)) {
          item.issues.error('office_not_in_scope', `office "${item.identity.office}" is not one this feed may push for (${[...scope].join(', ')}); not stored`, item.path);
          counts.invalid += 1;
          issues.push(...item.issues.list);
          continue;
        }
        if (item.identity) {
          const keys = present.get(item.identity.office) ?? new Set<string>();
          keys.add(listingKey(item.identity.office, item.identity.uniqueId));
          present.set(item.identity.office, keys);
        }
        pending.push(item);
      }
      if (pending.length >= BATCH) await flush();
    }
  } catch (err) {
    if (!(err instanceof FeedSyntaxError)) {
      await applying.catch(() => undefined); // never leave a write running behind a failed job
      throw err;
    }
    syntaxError = err;
    issues.push({ level: 'error', code: 'feed_not_well_formed', message: err.message, listingIndex: null, uniqueId: null, path: `line ${err.line}, column ${err.column}` });
  }
  if (pending.length) await flush();
  await applying;

  const result: IngestionResult = { ok: false, counts, summary, upserts, issues };
  if (input.mode === 'full') {
    if (syntaxError) result.reconcile = { status: 'skipped', reason: 'the feed is not well-formed', archived: 0, offices: [] };
    else {
      const offices: OfficeReconcile[] = [];
      for (const [office, keys] of [...present].sort(([a], [b]) => a.localeCompare(b))) {
        offices.push(await reconcileOffice(db, { office, presentKeys: keys, feedId: input.feedId, breaker }));
      }
      for (const o of offices) if (o.archived > 0) changedOffices.add(o.office);
      const tripped = offices.some((o) => o.tripped);
      result.reconcile = { status: tripped ? 'tripped' : 'applied', archived: offices.reduce((n, o) => n + o.archived, 0), offices };
      if (offices.length === 0) Object.assign(result.reconcile, { status: 'skipped', reason: 'the feed has no listings for any office it may push for' });
    }
  }
  await refreshDirectory(db, changedOffices);
  result.ok = !syntaxError && counts.invalid === 0 && !issues.some((i) => i.level === 'error');
  return result;
}
