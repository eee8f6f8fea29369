import { australianStateCode, toCountryCode } from '../countries.js';
import { geocodeOrWarn, sourceLocation } from '../geocode.js';
import type { ListingIssues } from '../issues.js';
import type { Address, FeedContext, Location } from '../types.js';
import type { ProjectAddressInput } from './project-schema.js';

/** A project document address as the canonical address and location (feed point, else the gazetteer). */
export function mapProjectAddress(
  input: ProjectAddressInput,
  feed: FeedContext,
  issues: ListingIssues,
  path: string,
): { address: Address; location: Location | null } {
  let country = input.country ? toCountryCode(input.country) : feed.defaultCountry;
  if (!country) {
    issues.warning('unknown_country', `country "${input.country}" is not a country; ${feed.defaultCountry} used`, `${path}/country`);
    country = feed.defaultCountry;
  }
  const region = input.region?.trim().toUpperCase() ?? null;
  const address: Address = {
    country,
    // An Australian state spelt out ("Queensland") is stored as its abbreviation, as REAXML's are.
    region: (region && country === 'AU' && australianStateCode(region)) || region,
    locality: input.locality?.trim() ?? null,
    postcode: input.postcode?.trim() ?? null,
    street: input.street?.trim() ?? null,
    streetNumber: input.streetNumber?.trim() ?? null,
    subNumber: input.subNumber?.trim() ?? null,
    display: input.display ?? true,
  };
  if (!address.locality && !address.postcode) issues.error('missing_address', 'address has neither locality nor postcode', path);
  const location = sourceLocation(input.lat, input.lng) ?? geocodeOrWarn(address, issues, path);
  return { address, location };
}
