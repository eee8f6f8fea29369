import { contentHash } from './hash.js';
import type { CanonicalListing } from './types.js';

export interface BreakerSettings {
  /** CIRCUIT_BREAKER_RATIO */
  ratio: number;
  /** CIRCUIT_BREAKER_MIN */
  min: number;
}

/**
 * DESIGN.md §5.5: the mass-delete guard trips when an office's archive set is larger than the
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
