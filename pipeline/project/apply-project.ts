import type { UpsertAction } from '../applied.js';
import { isEarlier } from '../apply-listing.js';
import type { CanonicalProject } from '../types.js';
import { finishProject, type ProjectDraft } from './map-project.js';

/** advanced: unchanged in content but newer; project carries the newer modTime, which must be stored. */
export type ProjectApplied = { action: 'invalid' } | { action: UpsertAction; project: CanonicalProject; advanced?: boolean };

/**
 * Applying a project (docs/architecture.md, Ingestion), against its stored version (null when new), pure: stale, then the
 * content hash decides between unchanged and updated (an unchanged project with a newer modTime
 * says so: its modTime is kept). An archived project that reappears differs in status, so it is updated.
 */
export function applyProject(stored: CanonicalProject | null, draft: ProjectDraft | null): ProjectApplied {
  if (!draft) return { action: 'invalid' };
  if (stored && isEarlier(draft.modTime, stored.modTime)) return { action: 'stale_ignored', project: stored };
  const project = finishProject(draft);
  if (!stored) return { action: 'inserted', project };
  if (project.contentHash === stored.contentHash) {
    // The newest modTime seen is what older records are judged against, even when nothing changed.
    const advanced = isEarlier(stored.modTime, draft.modTime);
    return { action: 'unchanged', project: advanced ? { ...stored, modTime: draft.modTime } : stored, advanced };
  }
  return { action: 'updated', project };
}
