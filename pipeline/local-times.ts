import { zoneFor } from './countries.js';
import { type OpenHome, parseInspection, sortedOpenHomes } from './inspection-times.js';
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
  const openHomes = local.inspections && delta.openHomes ? rereadOpenHomes(delta.openHomes, zone, stored.address.country) : delta.openHomes;
  const timeZone = typeof delta.timeZone === 'string' ? zone : delta.timeZone;
  return { ...delta, modTime, auction, openHomes, timeZone, localTimes: { ...local, zone } };
}

/** Open homes read again in another zone, from their text. */
function rereadOpenHomes(list: OpenHome[], zone: string, country: string | null | undefined): OpenHome[] {
  const out: OpenHome[] = [];
  for (const item of list) {
    const times = item.text === undefined ? item : parseInspection(item.text, zone, { monthFirst: country === 'US' });
    if (times) out.push({ ...item, start: times.start, end: times.end });
  }
  return sortedOpenHomes(out);
}
