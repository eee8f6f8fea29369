import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { archiveListing, type BreakerSettings, breakerTrips } from '../pipeline/reconcile.js';
import type { CanonicalListing } from '../pipeline/types.js';
import { markChangeSource } from './change-source.js';
import type { Db } from './knex.js';
import { loadListings } from './listings-store.js';
import { archiveProjects } from './projects-store.js';

export interface OfficeReconcile {
  office: string;
  /** Listings of the office that appeared in the feed (valid or not). */
  present: number;
  /** Non-archived listings of the office before the reconcile. */
  nonArchived: number;
  /** Absent listings: archived, or held when tripped. */
  absent: number;
  archived: number;
  tripped: boolean;
  quarantineId: string | null;
  /** Project feeds: the same figures for the office's projects. */
  projects?: { present: number; nonArchived: number; absent: number; archived: number };
}

/**
 * What a full feed owns, and so may archive: a listing feed (REAXML, RESO) the office's listings
 * outside projects; a project feed the office's projects and their child listings.
 */
export type ReconcileScope = 'listings' | 'projects';

const ARCHIVE_BATCH = 500;

/** Archives the given records (already locked by the caller's transaction). */
async function storeArchived(trx: Knex.Transaction, listings: CanonicalListing[]): Promise<number> {
  let count = 0;
  for (let i = 0; i < listings.length; i += ARCHIVE_BATCH) {
    const batch = listings.slice(i, i + ARCHIVE_BATCH).map(archiveListing);
    const values = batch.map(() => '(?, ?::jsonb, ?)').join(', ');
    const params = batch.flatMap((l) => [l.listingKey, JSON.stringify({ ...l, hidden: undefined }), l.contentHash]);
    const result = await trx.raw(
      `UPDATE listings AS l SET status = 'archived', data = v.data, content_hash = v.hash, updated_at = change_stamp()
       FROM (VALUES ${values}) AS v(key, data, hash) WHERE l.listing_key = v.key AND l.status <> 'archived'`,
      params,
    );
    count += result.rowCount ?? result.affectedRows ?? batch.length;
  }
  return count;
}

/** Serialises reconciles of one office across processes for the rest of the transaction. */
const lockOffice = (trx: Knex.Transaction, office: string) => trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`reconcile:${office}`]);

/**
 * Reconciling one office of a full feed (docs/architecture.md, Ingestion): archive every non-archived listing (and, for
 * a project feed, project) of the feed's scope whose key did not appear, unless the circuit
 * breaker trips; then nothing is archived and a quarantine item records what would have gone.
 */
export async function reconcileOffice(
  db: Db,
  input: { office: string; scope: ReconcileScope; presentKeys: Set<string>; presentProjectKeys?: Set<string>; feedId: string; breaker: BreakerSettings },
): Promise<OfficeReconcile> {
  return db.transaction(async (trx) => {
    await markChangeSource(trx, `feed:${input.feedId}`);
    await lockOffice(trx, input.office);
    const owned = () => {
      const q = trx('listings').where({ office: input.office }).whereNot({ status: 'archived' });
      return input.scope === 'projects' ? q.whereNotNull('project_key') : q.whereNull('project_key');
    };
    const [{ count }] = await owned().count({ count: '*' });
    const nonArchived = Number(count);
    const absentKeys: string[] = await owned()
      .whereRaw('NOT (listing_key = ANY(?::text[]))', [[...input.presentKeys]])
      .orderBy('listing_key')
      .pluck('listing_key');
    let projects: { present: number; nonArchived: number; absentKeys: string[] } | null = null;
    if (input.scope === 'projects') {
      const present = input.presentProjectKeys ?? new Set<string>();
      const stored: string[] = await trx('projects')
        .where({ office: input.office })
        .whereNot({ status: 'archived' })
        .orderBy('project_key')
        .pluck('project_key');
      projects = { present: present.size, nonArchived: stored.length, absentKeys: stored.filter((k) => !present.has(k)) };
    }
    const base = { office: input.office, present: input.presentKeys.size, nonArchived, absent: absentKeys.length };
    const projectFigures = (archived: number) =>
      projects ? { projects: { present: projects.present, nonArchived: projects.nonArchived, absent: projects.absentKeys.length, archived } } : {};
    const absentProjects = projects?.absentKeys ?? [];
    if (absentKeys.length === 0 && absentProjects.length === 0) return { ...base, archived: 0, tripped: false, quarantineId: null, ...projectFigures(0) };
    // Projects and their listings are weighed together: removing a project is a mass delete too.
    if (breakerTrips(absentKeys.length + absentProjects.length, nonArchived + (projects?.nonArchived ?? 0), input.breaker)) {
      const quarantineId = randomUUID();
      await trx('quarantine_items').insert({
        id: quarantineId,
        feed_id: input.feedId,
        office: input.office,
        archive_count: absentKeys.length,
        active_count: nonArchived,
        keys: JSON.stringify(absentKeys),
        project_keys: JSON.stringify(absentProjects),
      });
      return { ...base, archived: 0, tripped: true, quarantineId, ...projectFigures(0) };
    }
    const stored = await loadListings(trx, absentKeys, { forUpdate: true });
    const archived = await storeArchived(trx, [...stored.values()]);
    const projectsArchived = await archiveProjects(trx, absentProjects);
    return { ...base, archived, tripped: false, quarantineId: null, ...projectFigures(projectsArchived) };
  });
}

/**
 * The held archive of a quarantine item, applied at an operator's request: only listings and
 * projects still not archived and not written since the trip.
 */
export async function applyHeldArchive(trx: Knex.Transaction, item: { id: string; office: string; keys: string[]; projectKeys: string[] }): Promise<number> {
  await lockOffice(trx, item.office);
  const heldSince = trx('quarantine_items').select('created_at').where({ id: item.id });
  const keys: string[] = await trx('listings')
    .whereRaw('listing_key = ANY(?::text[])', [item.keys])
    .whereNot({ status: 'archived' })
    .where('updated_at', '<=', heldSince)
    .pluck('listing_key');
  const stored = await loadListings(trx, keys, { forUpdate: true });
  const projectKeys: string[] = await trx('projects')
    .whereRaw('project_key = ANY(?::text[])', [item.projectKeys])
    .whereNot({ status: 'archived' })
    .where('updated_at', '<=', heldSince)
    .pluck('project_key');
  return (await storeArchived(trx, [...stored.values()])) + (await archiveProjects(trx, projectKeys));
}
