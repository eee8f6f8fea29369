import { australianStateCode, toCountryCode } from '../countries.js';
import { geocodeOrWarn, sourceLocation } from '../geocode.js';
import type { Address, FeedContext, Location } from '../types.js';
import type { ResoFields } from './reso-values.js';

const PART_FIELDS = ['StreetNumber', 'StreetName', 'UnitNumber', 'City', 'StateOrProvince', 'PostalCode', 'UnparsedAddress', 'Country'];

/** "12/34 Example St": unit, number and street of UnparsedAddress's first segment. */
const STREET_LINE = /^(?:(?:unit\s+)?([A-Za-z0-9]+)\s*\/\s*)?(\d+[A-Za-z]?(?:-\d+[A-Za-z]?)?)\s+(.+)$/i;
/** "Parramatta NSW 2150" or "IL 62701": the last segment's locality, region and postcode. */
const PLACE_LINE = /^(?:(.*?)\s+)?([A-Za-z]{2,3})\s+([A-Za-z0-9]{3,5}(?:-\d{4})?)$/;

/**
 * The longest UnparsedAddress split into parts (docs/security.md, Text the parsers read): a real one
 * is well under 200 characters, and STREET_LINE backtracks on long runs of white space (100,000:
 * 8.4 s), so a longer one yields no parts (it is still kept as text where the record uses it).
 */
export const ADDRESS_LINE_MAX_CHARS = 300;

/** The parts UnparsedAddress yields, for fields the record does not give separately. */
function parseUnparsed(text: string): Partial<Address> {
  if (text.length > ADDRESS_LINE_MAX_CHARS) return {};
  const segments = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const out: Partial<Address> = {};
  const street = STREET_LINE.exec(segments[0] ?? '');
  if (street) Object.assign(out, { subNumber: street[1] ?? null, streetNumber: street[2], street: street[3] });
  else if (segments[0]) out.street = segments[0];
  if (segments.length > 1) {
    const place = PLACE_LINE.exec(segments[segments.length - 1]);
    if (place) {
      Object.assign(out, { region: place[2].toUpperCase(), postcode: place[3] });
      out.locality = place[1] ?? (segments.length > 2 ? segments[segments.length - 2] : null);
    } else out.locality = segments[segments.length - 1];
  }
  return out;
}

/**
 * The address parts (StreetNumber, StreetDirPrefix, StreetName, StreetSuffix, StreetDirSuffix,
 * UnitNumber, City, StateOrProvince, PostalCode, Country), with UnparsedAddress filling what they
 * leave out. Undefined when the record carries no address at all.
 */
export function mapResoAddress(f: ResoFields, feed: FeedContext): Address | undefined {
  if (!PART_FIELDS.some((field) => f.has(field))) return undefined;
  const rawCountry = f.text('Country');
  let country = rawCountry ? toCountryCode(rawCountry) : null;
  if (rawCountry && !country) f.issues.warning('unknown_country', `Country "${rawCountry}" is not a country; ${feed.defaultCountry} used`, f.pathOf('Country'));
  country ??= feed.defaultCountry;
  const streetName = f.text('StreetName');
  const street = streetName
    ? ['StreetDirPrefix', 'StreetName', 'StreetSuffix', 'StreetDirSuffix']
        .map((x) => f.text(x))
        .filter(Boolean)
        .join(' ')
    : null;
  const unparsed = f.text('UnparsedAddress');
  const parsed = unparsed ? parseUnparsed(unparsed) : {};
  const pick = (own: string | null, key: 'region' | 'locality' | 'postcode' | 'street' | 'streetNumber' | 'subNumber') => own ?? parsed[key] ?? null;
  const region = pick(f.text('StateOrProvince')?.toUpperCase() ?? null, 'region');
  return {
    country,
    // An Australian state spelt out ("Queensland") is stored as its abbreviation, as REAXML's are.
    region: (region && country === 'AU' && australianStateCode(region)) || region,
    locality: pick(f.text('City'), 'locality'),
    postcode: pick(f.text('PostalCode'), 'postcode'),
    street: pick(street, 'street'),
    streetNumber: streetName ? f.text('StreetNumber') : pick(f.text('StreetNumber'), 'streetNumber'),
    subNumber: pick(f.text('UnitNumber'), 'subNumber'),
    display: f.flag('InternetAddressDisplayYN') ?? true,
  };
}

/** Latitude/Longitude (precision source) when they are a real point, else the gazetteer. */
export function mapResoLocation(f: ResoFields, address: Address): Location | null {
  if (f.has('Latitude') || f.has('Longitude')) {
    const found = sourceLocation(f.number('Latitude') ?? undefined, f.number('Longitude') ?? undefined);
    if (found) return found;
    f.issues.warning(
      'invalid_coordinates',
      `Latitude ${JSON.stringify(f.record.Latitude)} and Longitude ${JSON.stringify(f.record.Longitude)} are not a valid point; geocoded instead`,
      f.pathOf('Latitude'),
    );
  }
  return geocodeOrWarn(address, f.issues, f.path);
}
