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
 */
export function validateListing(listing: CanonicalListing, issues: ListingIssues, path: string, fields: FieldPaths = {}): void {
  const onMarket = listing.status === 'active' || listing.status === 'under_offer';
  if (!onMarket) return;
  const at = (field: keyof FieldPaths) => `${path}${fields[field] ?? `/${field}`}`;
  if (!listing.address) issues.error('missing_address', `a ${listing.status} listing needs an address`, at('address'));
  else if (!listing.address.locality && !listing.address.postcode) {
    issues.error('missing_address', 'address has neither suburb nor postcode', at('address'));
  }
  if (!listing.headline && fields.headline !== null) issues.warning('missing_headline', 'listing has no headline', at('headline'));
  if (!listing.description && fields.description !== null) issues.warning('missing_description', 'listing has no description', at('description'));
}
