import { contentHash } from './hash.js';
import type { CanonicalListing, CanonicalProject } from './types.js';

export interface BreakerSettings {
  /** CIRCUIT_BREAKER_RATIO */
  ratio: number;
  /** CIRCUIT_BREAKER_MIN */
  min: number;
}

/**
 * The circuit breaker (docs/architecture.md, Ingestion): the mass-delete guard trips when an office's archive set is larger than the
 * minimum and larger than the ratio of its non-archived listings.
 */
export function breakerTrips(archiveCount: number, nonArchivedCount: number, settings: BreakerSettings): boolean {
  return archiveCount > settings.min && archiveCount > settings.ratio * nonArchivedCount;
}

/** The record a reconcile stores for a listing absent from a full feed. */
export function archiveListing(listing: CanonicalListing): CanonicalListing {
  const archived = { ...listing, status: 'archived' as const };
  return { ...archived, contentHash: contentHash(archived) };
}

/** The record a reconcile stores for a project absent from a full project feed. */
export function archiveProject(project: CanonicalProject): CanonicalProject {
  const archived = { ...project, status: 'archived' as const };
  return { ...archived, contentHash: contentHash(archived) };
}
