import type { ListingIssues } from './issues.js';
import type { CanonicalListing } from './types.js';

/**
 * Rules on the merged listing (what would be stored). A listing on the market must carry what a
 * new listing needs: an address. Headline and description are expected but not required.
 */
export function validateListing(listing: CanonicalListing, issues: ListingIssues, path: string): void {
  const onMarket = listing.status === 'active' || listing.status === 'under_offer';
  if (!onMarket) return;
  if (!listing.address) issues.error('missing_address', `a ${listing.status} listing needs an address`, `${path}/address`);
  else if (!listing.address.locality && !listing.address.postcode) {
    issues.error('missing_address', 'address has neither suburb nor postcode', `${path}/address`);
  }
  if (!listing.headline) issues.warning('missing_headline', 'listing has no headline', `${path}/headline`);
  if (!listing.description) issues.warning('missing_description', 'listing has no description', `${path}/description`);
}
