import { isEarlier, type UpsertAction } from '../apply-listing.js';
import type { CanonicalProject } from '../types.js';
import { finishProject, type ProjectDraft } from './map-project.js';

export type ProjectApplied = { action: 'invalid' } | { action: UpsertAction; project: CanonicalProject };

/**
 * DESIGN.md §5.2 for a project against its stored version (null when new), pure: stale, then the
 * content hash decides between unchanged and updated. An archived project that reappears differs
 * in status, so it is updated.
 */
export function applyProject(stored: CanonicalProject | null, draft: ProjectDraft | null): ProjectApplied {
  if (!draft) return { action: 'invalid' };
  if (stored && isEarlier(draft.modTime, stored.modTime)) return { action: 'stale_ignored', project: stored };
  const project = finishProject(draft);
  if (!stored) return { action: 'inserted', project };
  if (project.contentHash === stored.contentHash) return { action: 'unchanged', project: stored };
  return { action: 'updated', project };
}
