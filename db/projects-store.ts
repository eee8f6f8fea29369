import type { Knex } from 'knex';
import { publicProjectPatch } from '../pipeline/public-view.js';
import { archiveProject } from '../pipeline/reconcile.js';
import type { CanonicalProject } from '../pipeline/types.js';
import type * as Row from './rows.js';

/** Stored projects by key (one query). With forUpdate the rows are locked in key order. */
export async function loadProjects(db: Knex, keys: string[], options: { forUpdate?: boolean } = {}): Promise<Map<string, CanonicalProject>> {
  if (keys.length === 0) return new Map();
  const query = db('projects').select('project_key', 'data').whereRaw('project_key = ANY(?::text[])', [keys]).orderBy('project_key');
  const rows = options.forUpdate ? await query.forUpdate() : await query;
  return new Map(rows.map((row: Pick<Row.Project, 'project_key' | 'data'>) => [row.project_key, row.data]));
}

function publicPatchJson(project: CanonicalProject): string | null {
  const patch = publicProjectPatch(project);
  return patch ? JSON.stringify(patch) : null;
}

/** Inserts or updates whole project records, guarded in SQL like listings: an older record never overwrites a newer one. */
export async function writeProjects(db: Knex, projects: CanonicalProject[]): Promise<Set<string>> {
  if (projects.length === 0) return new Set();
  const rows = projects.map((p) => ({
    project_key: p.projectKey,
    office: p.office,
    unique_id: p.uniqueId,
    status: p.status,
    stage: p.stage,
    country: p.address.country,
    mod_time: p.modTime,
    content_hash: p.contentHash,
    data: JSON.stringify(p),
    public_patch: publicPatchJson(p),
  }));
  const written: { project_key: string }[] = await db('projects')
    .insert(rows)
    .onConflict('project_key')
    .merge({
      ...Object.fromEntries(['status', 'stage', 'country', 'mod_time', 'content_hash', 'data', 'public_patch'].map((c) => [c, db.raw(`excluded.${c}`)])),
      updated_at: db.fn.now(),
    })
    .where('projects.mod_time', '<=', db.raw('excluded.mod_time'))
    .returning('project_key');
  return new Set(written.map((r) => r.project_key));
}

/** Marks projects archived (already locked by the caller's transaction); returns how many changed. */
export async function archiveProjects(trx: Knex.Transaction, keys: string[]): Promise<number> {
  if (keys.length === 0) return 0;
  const stored = await loadProjects(trx, keys, { forUpdate: true });
  let count = 0;
  for (const project of stored.values()) {
    if (project.status === 'archived') continue;
    const archived = archiveProject(project);
    await trx('projects')
      .where({ project_key: project.projectKey })
      .update({ status: 'archived', content_hash: archived.contentHash, data: JSON.stringify(archived), updated_at: trx.fn.now() });
    count += 1;
  }
  return count;
}
