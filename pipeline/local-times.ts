import { zoneFor } from './countries.js';
import { parseReaDate } from './reaxml/dates.js';
import type { CanonicalListing, ListingDelta } from './types.js';

/**
 * A record without an address had its zone-less times read in the feed's default zone (its
 * localTimes). Applied to a stored listing, they are read in that listing's own zone instead: a
 * Perth withdrawal at 16:00 is 16:00 in Perth, not in Sydney. Returns the delta as it applies to
 * `stored` (the same object when nothing changes). Pure.
 */
export function inStoredZone(delta: ListingDelta, stored: CanonicalListing | null): ListingDelta {
  const local = delta.localTimes;
  if (!local || !stored?.address) return delta;
  const zone = zoneFor(stored.address.country, stored.address.region);
  if (zone === local.zone) return delta;
  const reread = (raw: string | undefined) => {
    if (raw === undefined) return undefined;
    const result = parseReaDate(raw, zone);
    return result.ok ? result.value : undefined;
  };
  const modTime = reread(local.modTime) ?? delta.modTime;
  const auctionDate = reread(local.auction);
  const auction = auctionDate !== undefined && delta.auction ? { ...delta.auction, date: auctionDate } : delta.auction;
  return { ...delta, modTime, auction, localTimes: { ...local, zone } };
}
