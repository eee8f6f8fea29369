import type { CanonicalListing } from './types.js';

/** What applying a listing came to, and a dry run's view of it (pipeline/apply-listing.ts makes them). */

export type UpsertAction = 'inserted' | 'updated' | 'unchanged' | 'stale_ignored';

export type Applied =
  | { action: 'invalid' }
  | { action: 'stale_ignored'; listing: CanonicalListing }
  /** advanced: the content is the stored one but the record is newer; listing carries the newer modTime. */
  | { action: 'unchanged'; listing: CanonicalListing; advanced: boolean }
  | { action: 'inserted' | 'updated'; listing: CanonicalListing };

/** A dry run's preview of a listing: the record, or its JSON text, whichever is wanted (each made from the other on demand). */
export interface Preview {
  listing(): CanonicalListing;
  json(): string;
}

export const previewOf = (listing: CanonicalListing): Preview => ({ listing: () => listing, json: () => JSON.stringify(listing) });

export const previewOfJson = (json: string): Preview => ({ listing: () => JSON.parse(json) as CanonicalListing, json: () => json });

/** What a dry run keeps of a listing applied as new: whether it is valid, what decides duplicates, and its preview. */
export type DryRunOutcome = { valid: false } | { valid: true; listingKey: string; modTime: string; office: string; uniqueId: string; preview: Preview };
