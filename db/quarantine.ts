import { refreshDirectory } from './directory.js';
import type { Db } from './knex.js';
import { applyHeldArchive } from './reconcile.js';
import { iso, isoOrNull } from './row-values.js';

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

const toItem = (row: any): QuarantineItem => ({
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

export async function listQuarantine(db: Db, options: { includeResolved: boolean }): Promise<QuarantineItem[]> {
  const query = db('quarantine_items').orderBy('created_at', 'desc').orderBy('id');
  if (!options.includeResolved) query.whereNull('resolved_at');
  return (await query).map(toItem);
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
    const appliedCount = apply ? await applyHeldArchive(trx, { id, office: row.office, keys: row.keys, projectKeys: row.project_keys ?? [] }) : null;
    if (appliedCount) await refreshDirectory(trx, [row.office]);
    const [updated] = await trx('quarantine_items')
      .where({ id })
      .update({ resolved_at: trx.fn.now(), resolution: apply ? 'applied' : 'reviewed', applied_count: appliedCount })
      .returning('*');
    return toItem(updated);
  });
}
