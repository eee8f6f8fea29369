import type { Applied } from './applied.js';
import { publicPatch } from './public-view.js';
import type { CanonicalListing } from './types.js';

/**
 * A canonical record as its listings row holds it (all but the source fingerprint, which is the
 * writer's to give): the columns read from the record, and the record itself as JSON text without
 * the operator's hidden flag, which the row keeps in a column of its own.
 */
export interface StoredRow {
  listing_key: string;
  office: string;
  unique_id: string;
  format: string;
  status: string;
  mod_time: string;
  content_hash: string;
  hidden: boolean;
  data: string;
  /** What public answers show differently (the agent's display choices) and the display fields, as JSON text. */
  public_patch: string;
}

export function storedRowOf(listing: CanonicalListing): StoredRow {
  return {
    listing_key: listing.listingKey,
    office: listing.office,
    unique_id: listing.uniqueId,
    format: listing.format,
    status: listing.status,
    mod_time: listing.modTime,
    content_hash: listing.contentHash,
    hidden: listing.hidden,
    data: JSON.stringify({ ...listing, hidden: undefined }),
    public_patch: JSON.stringify(publicPatch(listing)),
  };
}

type WithListing = Extract<Applied, { listing: CanonicalListing }>;

/** The rows of listings applied on a reading thread, made there with them. */
const rowsMade = new WeakMap<WithListing, StoredRow>();

/**
 * A listing applied as new on a reading thread, from what crossed: its record as JSON text, parsed
 * only once something reads the record, and its stored row, made there. Writing the listing takes
 * that row (storedRowOfApplied), so the record is neither parsed nor serialised again here.
 */
export function insertedOnThread(recordJson: string, row: StoredRow): Applied {
  let listing: CanonicalListing | undefined;
  const applied: WithListing = {
    action: 'inserted',
    get listing(): CanonicalListing {
      listing ??= JSON.parse(recordJson) as CanonicalListing;
      return listing;
    },
  };
  rowsMade.set(applied, row);
  return applied;
}

/** The stored row of a listing as applied: the one made with it on a reading thread, or one made now. */
export function storedRowOfApplied(applied: WithListing): StoredRow {
  return rowsMade.get(applied) ?? storedRowOf(applied.listing);
}
