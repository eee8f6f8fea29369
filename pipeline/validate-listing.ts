import type { ListingIssues } from './issues.js';
import type { CanonicalListing } from './types.js';

/**
 * Where a format keeps the fields these rules check, relative to the listing's path (REAXML and
 * project documents use the canonical names); null: the format has no such field, so its absence
 * is not worth a warning.
 */
export type FieldPaths = Partial<Record<'address' | 'headline' | 'description', string | null>>;

/**
 * Rules on the merged listing (what would be stored). A listing on the market must carry what a
 * new listing needs: an address. Headline and description are expected but not required.
 * delta: the dry run of a delta format (REAXML), which has no stored listing to merge onto; a
 * record without an address is what an update looks like, so it is valid with a warning there.
 */
export function validateListing(
  listing: CanonicalListing,
  issues: ListingIssues,
  path: string,
  fields: FieldPaths = {},
  options: { delta?: boolean; updatesStored?: boolean } = {},
): void {
  const onMarket = listing.status === 'active' || listing.status === 'under_offer';
  if (!onMarket) return;
  const at = (field: keyof FieldPaths) => `${path}${fields[field] ?? `/${field}`}`;
  if (!listing.address && options.delta) {
    issues.warning(
      'delta_needs_stored_listing',
      `the record has no address, so it can only update a listing already stored (ingestion keeps that listing's address); for a listing not yet stored it is missing_address, an error`,
      at('address'),
    );
  } else if (!listing.address) issues.error('missing_address', `a ${listing.status} listing needs an address`, at('address'));
  else if (!listing.address.locality && !listing.address.postcode) {
    issues.error('missing_address', 'address has neither suburb nor postcode', at('address'));
  }
  // A record that updates a stored listing (or, in a dry run, is such an update: no address) is
  // not asked for the text a new listing needs.
  if (options.updatesStored || (options.delta && !listing.address)) return;
  if (!listing.headline && fields.headline !== null) issues.warning('missing_headline', 'listing has no headline', at('headline'));
  if (!listing.description && fields.description !== null) issues.warning('missing_description', 'listing has no description', at('description'));
}
