import type { Knex } from 'knex';
import { loadProjects, writeProjects } from '../../db/projects-store.js';
import type { UpsertAction } from '../../pipeline/applied.js';
import { keyOfIdentity } from '../../pipeline/listing-key.js';
import { applyProject } from '../../pipeline/project/apply-project.js';
import type { FeedProject } from '../../pipeline/project/read-project-feed.js';
import type { CanonicalProject } from '../../pipeline/types.js';

export interface ProjectsOutcome {
  upserts: { projectKey: string; action: UpsertAction }[];
  invalid: number;
}

/**
 * Applying a feed's projects (docs/architecture.md, Ingestion), in one transaction: the stored versions are locked, each
 * project is decided in feed order (a repeated project sees the earlier one's result), and only
 * changed records are written, guarded in SQL against newer ones. Projects are few per feed, so
 * this needs none of the listing batch machinery.
 */
export async function applyProjects(db: Knex, items: FeedProject[]): Promise<ProjectsOutcome> {
  const keys = [...new Set(items.map((item) => keyOfIdentity(item.identity)).filter((k): k is string => k !== null))];
  return db.transaction(async (trx) => {
    const state = await loadProjects(trx, keys, { forUpdate: true });
    const decided: { key: string | null; action: UpsertAction | 'invalid' }[] = [];
    const toWrite = new Map<string, CanonicalProject>();
    for (const item of items) {
      const key = keyOfIdentity(item.identity);
      const applied = applyProject(key ? (state.get(key) ?? null) : null, item.issues.hasErrors ? null : item.draft);
      decided.push({ key, action: applied.action });
      // An unchanged project with a newer modTime is written too (projects are few): only its modTime differs.
      if (key && (applied.action === 'inserted' || applied.action === 'updated' || (applied.action === 'unchanged' && applied.advanced))) {
        state.set(key, applied.project);
        toWrite.set(key, applied.project);
      }
    }
    const written = await writeProjects(trx, [...toWrite.values()]);
    const upserts: ProjectsOutcome['upserts'] = [];
    let invalid = 0;
    for (const d of decided) {
      if (d.action === 'invalid') invalid += 1;
      else
        upserts.push({ projectKey: d.key!, action: (d.action === 'inserted' || d.action === 'updated') && !written.has(d.key!) ? 'stale_ignored' : d.action });
    }
    return { upserts, invalid };
  });
}
