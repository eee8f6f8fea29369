import { officeOfKey, uniqueIdOfKey } from '../pipeline/listing-key.js';
import { markChangeSource } from './change-source.js';
import { refreshDirectory } from './directory.js';
import type { Db } from './knex.js';
import { applyHeldArchive } from './reconcile.js';
import { iso, isoOrNull, nextOffsetOf, offsetPage } from './row-values.js';
import type * as Row from './rows.js';
import { orderBySql, QUARANTINE_SORTS } from './sort-order.js';

export interface QuarantineItem {
  id: string;
  feedId: string;
  office: string;
  /** Listings the reconcile would have archived, and the office's non-archived listings then. */
  archiveCount: number;
  nonArchivedCount: number;
  keys: string[];
  /** Projects the reconcile would have archived (project feeds). */
  projectKeys: string[];
  createdAt: string;
  resolved: boolean;
  resolvedAt: string | null;
  resolution: 'reviewed' | 'applied' | null;
  appliedCount: number | null;
}

const toItem = (row: Row.QuarantineItem): QuarantineItem => ({
  id: row.id,
  feedId: row.feed_id,
  office: row.office,
  archiveCount: row.archive_count,
  nonArchivedCount: row.active_count,
  keys: row.keys,
  projectKeys: row.project_keys ?? [],
  createdAt: iso(row.created_at),
  resolved: row.resolved_at !== null,
  resolvedAt: isoOrNull(row.resolved_at),
  resolution: row.resolution ?? null,
  appliedCount: row.applied_count ?? null,
});

export async function listQuarantine(
  db: Db,
  options: { includeResolved: boolean; sort?: string; limit: number; offset: number },
): Promise<{ total: number; items: QuarantineItem[]; nextOffset: number | null }> {
  const base = () => (options.includeResolved ? db('quarantine_items') : db('quarantine_items').whereNull('resolved_at'));
  const { rows, total, nextOffset } = await offsetPage<Row.QuarantineItem>(
    base,
    (q) => q.orderByRaw(orderBySql(options.sort ?? '-tripped', QUARANTINE_SORTS, 'id')),
    options,
  );
  return { total, items: rows.map(toItem), nextOffset };
}

/**
 * Marks an item reviewed; with apply, also performs the held archive. Resolving a resolved item
 * again changes nothing and answers the item as it is. null for an unknown id.
 */
export async function resolveQuarantine(db: Db, id: string, apply: boolean): Promise<QuarantineItem | null> {
  return db.transaction(async (trx) => {
    const row = await trx('quarantine_items').where({ id }).forUpdate().first();
    if (!row) return null;
    if (row.resolved_at) return toItem(row);
    // The archive is the tripped feed's, applied by an operator.
    await markChangeSource(trx, `feed:${row.feed_id}`);
    const appliedCount = apply ? await applyHeldArchive(trx, { id, office: row.office, keys: row.keys, projectKeys: row.project_keys ?? [] }) : null;
    if (appliedCount) await refreshDirectory(trx, [row.office]);
    const [updated] = await trx('quarantine_items')
      .where({ id })
      .update({ resolved_at: trx.fn.now(), resolution: apply ? 'applied' : 'reviewed', applied_count: appliedCount })
      .returning('*');
    return toItem(updated);
  });
}

/** A key a trip held, and the listing stored under it now (its columns null when there is none). */
type HeldRow = { key: string; written_since: boolean } & (
  | Pick<Row.Listing, 'office' | 'unique_id' | 'status'>
  | { office: null; unique_id: null; status: null }
) & { headline: string | null };

/** One listing a trip held back from archiving, as it is now. */
export interface HeldListing {
  listingKey: string;
  office: string;
  uniqueId: string;
  /** Its status now (null: no longer stored). */
  status: string | null;
  headline: string | null;
  /** Written since the trip (sent again by a later feed): applying the archive leaves it as it is. */
  writtenSince: boolean;
}

/**
 * Every listing a trip would archive, in the order the trip recorded them, paged, each as it is
 * now; null when the item is unknown.
 */
export async function heldListings(
  db: Db,
  id: string,
  page: { limit: number; offset: number },
): Promise<{ total: number; listings: HeldListing[]; nextOffset: number | null } | null> {
  const item = await db('quarantine_items').where({ id }).first(db.raw('jsonb_array_length(keys)::int AS total'), 'created_at');
  if (!item) return null;
  const rows = (
    await db.raw(
      `SELECT k.key, l.office, l.unique_id, l.status, coalesce(l.data->'headline'->>(SELECT min(h) FROM jsonb_object_keys(l.data->'headline') h), NULL) AS headline,
              coalesce(l.updated_at > q.created_at, false) AS written_since
       FROM quarantine_items q
       CROSS JOIN LATERAL jsonb_array_elements_text(q.keys) WITH ORDINALITY AS k(key, n)
       LEFT JOIN listings l ON l.listing_key = k.key
       WHERE q.id = ?
       ORDER BY k.n
       LIMIT ? OFFSET ?`,
      [id, page.limit, page.offset],
    )
  ).rows;
  return {
    total: item.total,
    listings: rows.map((r: HeldRow) => ({
      listingKey: r.key,
      office: r.office ?? officeOfKey(r.key),
      uniqueId: r.unique_id ?? uniqueIdOfKey(r.key),
      status: r.status ?? null,
      headline: r.headline ?? null,
      writtenSince: r.written_since,
    })),
    nextOffset: nextOffsetOf(page.offset, rows.length, item.total),
  };
}
