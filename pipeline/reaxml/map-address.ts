import { australianStateCode, toCountryCode } from '../countries.js';
import { geocodeOrWarn, sourceLocation } from '../geocode.js';
import { splitStreetNumber } from '../street-number.js';
import type { Address, Location } from '../types.js';
import { attr, child, childText, type XmlNode } from '../xml-node.js';
import type { MapContext } from './map-context.js';
import { readBoolean, readDecimal } from './values.js';

const orNull = (v: string | undefined) => (v === undefined || v === '' ? null : v);

/** Country-first address (AUS becomes AU; context defaultCountry when absent or unknown). */
export function mapAddress(ctx: Pick<MapContext, 'feed' | 'issues'>, node: XmlNode): Address {
  const rawCountry = childText(node, 'country');
  let country = ctx.feed.defaultCountry;
  if (rawCountry) {
    const code = toCountryCode(rawCountry);
    if (code) country = code;
    else ctx.issues.warning('unknown_country', `country "${rawCountry}" is not an ISO-3166 code or name; ${country} used`, child(node, 'country')!.path);
  }
  const display = attr(node, 'display');
  const region = orNull(childText(node, 'state') ?? childText(node, 'region'));
  const lotNumber = orNull(childText(node, 'lotNumber'));
  const site = orNull(childText(node, 'site'));
  const streetNumber = orNull(childText(node, 'streetNumber'));
  const subNumber = orNull(childText(node, 'subNumber'));
  const lot = lotNumber ? lotNumber.replace(/^lot\s*/i, '') : null;
  const split = splitAddressNumber(streetNumber, subNumber, lot);
  return {
    country,
    // AU states arrive in any case ("Vic", "vic") or spelt out ("Queensland"); they are stored as their abbreviation.
    region: (region && country === 'AU' && australianStateCode(region)) || region,
    locality: orNull(childText(node, 'suburb')),
    postcode: orNull(childText(node, 'postcode')),
    street: orNull(childText(node, 'street')),
    streetNumber: split?.streetNumber ?? streetNumber,
    subNumber: split?.subNumber ?? subNumber,
    ...(split ? { streetNumberText: streetNumber! } : {}),
    ...(site ? { site } : {}),
    ...((split?.lotNumber ?? lot) ? { lotNumber: split?.lotNumber ?? lot! } : {}),
    display: display === undefined ? true : (readBoolean(display) ?? true),
  };
}

/**
 * A composite streetNumber split into sub-number, number and lot (splitStreetNumber), where that
 * agrees with what subNumber and lotNumber say; undefined leaves it whole.
 */
function splitAddressNumber(streetNumber: string | null, subNumber: string | null, lot: string | null): ReturnType<typeof splitStreetNumber> {
  if (!streetNumber) return undefined;
  const split = splitStreetNumber(streetNumber);
  if (!split) return undefined;
  const same = (a: string | null | undefined, b: string | undefined) => !a || !b || a.toLowerCase() === b.toLowerCase();
  if (!same(subNumber, split.subNumber) || !same(lot, split.lotNumber)) return undefined;
  if (subNumber && !split.subNumber && split.lotNumber === undefined) return undefined;
  return split;
}

/** A direct child by name in any case (vendors write Geocode, geocode, GEOCODE). */
function childAnyCase(node: XmlNode, lowerName: string): XmlNode | undefined {
  return node.children.find((c) => c.name.length === lowerName.length && c.name.toLowerCase() === lowerName);
}

/**
 * Vendors put coordinates in <latitude>/<longitude> (listing or address), in a <Geocode> element
 * holding them (MyDesktop; listing or address), in any case, or in extraFields.
 */
function sourceCoordinates(listing: XmlNode, address: XmlNode | undefined): { lat?: string; lng?: string; path: string } {
  const holders = [address, listing].flatMap((node) => (node ? [node, childAnyCase(node, 'geocode')] : [])).filter((n): n is XmlNode => n !== undefined);
  for (const holder of holders) {
    const latNode = childAnyCase(holder, 'latitude');
    const lngNode = childAnyCase(holder, 'longitude');
    const lat = latNode?.text.trim() || undefined;
    const lng = lngNode?.text.trim() || undefined;
    if (lat || lng) return { lat, lng, path: latNode?.path ?? holder.path };
  }
  const extra = child(listing, 'extraFields');
  if (extra) {
    const field = (names: string[]) => extra.children.find((f) => f.name === 'eField' && names.includes((attr(f, 'name') ?? '').toLowerCase()))?.text.trim();
    const lat = field(['lat', 'latitude', 'geolat']);
    const lng = field(['lng', 'lon', 'long', 'longitude', 'geolng', 'geolong']);
    if (lat || lng) return { lat, lng, path: extra.path };
  }
  return { path: listing.path };
}

/** Feed coordinates when present and sane, else the offline gazetteer, else null with a warning. */
export function mapLocation(ctx: MapContext, listing: XmlNode, addressNode: XmlNode | undefined, address: Address): Location | null {
  const src = sourceCoordinates(listing, addressNode);
  if (src.lat || src.lng) {
    const found = sourceLocation(src.lat ? readDecimal(src.lat) : undefined, src.lng ? readDecimal(src.lng) : undefined);
    if (found) return found;
    ctx.issues.warning(
      'invalid_coordinates',
      `coordinates "${src.lat ?? ''}", "${src.lng ?? ''}" are not a valid latitude and longitude; geocoded instead`,
      src.path,
    );
  }
  return geocodeOrWarn(address, ctx.issues, () => addressNode?.path ?? listing.path);
}
