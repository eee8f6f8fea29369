import { displayFields, titleCaseLocality } from './display-fields.js';
import { geocode } from './geocode.js';
import type { Address, CanonicalListing, CanonicalProject, Location, Price, Rent } from './types.js';

/**
 * What the public may see of a stored listing (every public read: search, one listing, a
 * project's listings, the directory's office locations). The stored record keeps everything the
 * agent sent; the agent's display choices decide what a public answer carries:
 * - a price, rent or sold price with display "no": no amount, range or rent per m², and the price
 *   view as text (else "Contact agent"; a sold price "Price withheld");
 * - display "range": the range and the text, no exact amount;
 * - an address with display "no": no street, street number, sub or lot number or site, and
 *   coordinates of the locality (the gazetteer's centre, else rounded to two decimals);
 * - never the bookkeeping (contentHash, hidden) nor the street directory reference;
 * - and always what a portal renders with (pipeline/display-fields.ts), from the public form.
 *
 * The difference is kept beside the record as a patch of its top-level fields (null when the
 * public sees the record as it is), made when the record is written; a public read is the record
 * without PUBLIC_OMITTED, with the patch laid over it.
 */

/** Top-level fields never in a public answer. */
export const PUBLIC_OMITTED = ['contentHash', 'hidden', 'streetDirectory'] as const;
/** A project's top-level fields never in a public answer. */
export const PUBLIC_PROJECT_OMITTED = ['contentHash'] as const;

export const WITHHELD_PRICE_TEXT = 'Contact agent';
export const WITHHELD_SOLD_TEXT = 'Price withheld';

/** A price or rent as the public sees it; the same object when nothing is withheld. */
function publicAmount<T extends Price | Rent>(price: T, withheldText: string): T {
  if (price.display && !price.displayRange) return price;
  const { range, perSqm, ...rest } = price as T & { perSqm?: unknown };
  if (!price.display) return { ...rest, amount: null, text: price.text ?? withheldText } as T;
  // display="range": the range (when there is one) and the text, not the amount.
  return { ...rest, amount: null, ...(range ? { range } : {}), ...(perSqm ? { perSqm } : {}) } as unknown as T;
}

/** The locality's point for an address whose street is withheld. */
function coarseLocation(address: Address, location: Location | null): Location | null {
  if (!location || location.precision === 'locality' || location.precision === 'postcode' || location.precision === 'region') return location;
  const place = geocode(address);
  if (place) return place;
  return { lat: Math.round(location.lat * 100) / 100, lng: Math.round(location.lng * 100) / 100, precision: 'locality', source: 'rounded' };
}

/**
 * The top-level fields whose public form differs from the stored one, and the fields a portal
 * renders with (displayPrice, addressLine, heroImage, primaryAgent), which every public form has.
 */
export function publicPatch(listing: CanonicalListing): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  if (listing.price) {
    const price = publicAmount(listing.price, WITHHELD_PRICE_TEXT);
    if (price !== listing.price) patch.price = price;
  }
  if (listing.rent) {
    const rent = publicAmount(listing.rent, WITHHELD_PRICE_TEXT);
    if (rent !== listing.rent) patch.rent = rent;
  }
  if (listing.sold?.price) {
    const price = publicAmount(listing.sold.price, WITHHELD_SOLD_TEXT);
    if (price !== listing.sold.price) patch.sold = { ...listing.sold, price };
  }
  Object.assign(patch, publicPlace(listing.address, listing.location));
  const shown = { ...listing, ...patch } as CanonicalListing;
  const locality = shown.address?.locality;
  if (shown.address && locality && titleCaseLocality(locality) !== locality) {
    patch.address = { ...shown.address, locality: titleCaseLocality(locality) };
  }
  return Object.assign(patch, displayFields(shown));
}

/** The address and location as the public sees them when the street is withheld; {} when it is shown. */
function publicPlace(address: Address | null, location: Location | null): Record<string, unknown> {
  if (!address || address.display) return {};
  const { streetNumberText: _text, site: _site, lotNumber: _lot, ...rest } = address;
  const patch: Record<string, unknown> = { address: { ...rest, street: null, streetNumber: null, subNumber: null } };
  const coarse = coarseLocation(address, location);
  if (coarse !== location) patch.location = coarse;
  return patch;
}

/** The same patch for a project: a project whose address is withheld shows only its locality. */
export function publicProjectPatch(project: CanonicalProject): Record<string, unknown> | null {
  const patch = publicPlace(project.address, project.location);
  return Object.keys(patch).length ? patch : null;
}

/**
 * The SQL expression of a public record as JSON text, from a listings row (alias `l`, or none):
 * the record without the omitted fields, with its public patch laid over it, and what has not yet
 * ended of its open homes (as { start, end }), inspections and auction (`public_listing_events`,
 * db/migrations/20261128140000_listing_events.ts; docs/reads.md, Open homes and auctions).
 */
export function publicRecordSql(alias = ''): string {
  const col = (name: string) => (alias ? `${alias}.${name}` : name);
  // Most records have neither open homes nor an auction: they skip the function (measured on 100,000
  // records: about 18 µs a record through it, 1 µs past it; docs/reads.md, Open homes and auctions).
  const data = col('data');
  const events = `CASE WHEN ${data}->'openHomes' IS NOT NULL OR ${data}->'auction'->>'date' IS NOT NULL THEN public_listing_events(${data}) ELSE '{"openHomes": []}'::jsonb END`;
  return `((${data} - '{${PUBLIC_OMITTED.join(',')}}'::text[]) || coalesce(${col('public_patch')}, '{}'::jsonb) || ${events})`;
}

/** The SQL expression of a public project from a projects row (alias `p`, or none): without its content hash, with its patch. */
export function publicProjectSql(alias = ''): string {
  const col = (name: string) => (alias ? `${alias}.${name}` : name);
  return `((${col('data')} - '{${PUBLIC_PROJECT_OMITTED.join(',')}}'::text[]) || coalesce(${col('public_patch')}, '{}'::jsonb))`;
}
