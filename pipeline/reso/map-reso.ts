import { officeIdProblem } from '../../lib/office-id.js';
import { zoneFor } from '../countries.js';
import { resolveCurrency } from '../currency.js';
import { parseReaDate } from '../reaxml/dates.js';
import type { Category, FeedContext, ListingDelta, Status } from '../types.js';
import { mapResoAddress, mapResoLocation } from './reso-address.js';
import { mapResoExtras } from './reso-extras.js';
import { mapResoAreas, mapResoFeatures, mapResoRooms } from './reso-features.js';
import { mapResoAgents, mapResoMedia } from './reso-media.js';
import { mapClose, mapLease, mapListPrice } from './reso-money.js';
import { mapResoOpenHouses } from './reso-open-houses.js';
import type { ResoFields } from './reso-values.js';

/** StandardStatus (docs/architecture.md, Formats and mapping); Closed is resolved by the listing kind. */
const STATUSES: Readonly<Record<string, Status | 'closed'>> = {
  active: 'active',
  activeundercontract: 'under_offer',
  pending: 'under_offer',
  closed: 'closed',
  withdrawn: 'withdrawn',
  canceled: 'off_market',
  cancelled: 'off_market',
  expired: 'off_market',
  hold: 'off_market',
  comingsoon: 'off_market',
  incomplete: 'off_market',
};

/** PropertyType to the canonical category and whether the listing is for lease. */
const TYPES: Readonly<Record<string, { category: Category; lease: boolean }>> = {
  residential: { category: 'residential', lease: false },
  residentialincome: { category: 'residential', lease: false },
  manufacturedinpark: { category: 'residential', lease: false },
  residentiallease: { category: 'rental', lease: true },
  land: { category: 'land', lease: false },
  farm: { category: 'rural', lease: false },
  commercialsale: { category: 'commercial', lease: false },
  commercialrealestate: { category: 'commercial', lease: false },
  commerciallease: { category: 'commercial', lease: true },
  businessopportunity: { category: 'business', lease: false },
};

/**
 * RESO identity: the office from the context, else ListOfficeKey, else ListOfficeMlsId; the listing
 * from ListingKey, else ListingKeyNumeric (the Web API allows either as the key), else ListingId.
 */
export function readResoIdentity(f: ResoFields, feed: FeedContext): { office?: string; uniqueId?: string; officeProblem?: string } {
  const office = feed.sourceOfficeId ?? f.text('ListOfficeKey') ?? f.text('ListOfficeMlsId') ?? undefined;
  // An office key that is no office id (`AGENT B`) can never be stored: no feed may push for it.
  const officeProblem = office === undefined || feed.sourceOfficeId ? null : officeIdProblem(office);
  return {
    office,
    uniqueId: f.text('ListingKey') ?? f.text('ListingKeyNumeric') ?? f.text('ListingId') ?? undefined,
    ...(officeProblem ? { officeProblem } : {}),
  };
}

/**
 * Whether the source says the listing may no longer be shown anywhere: StandardStatus Delete, or
 * MLS Grid's MlgCanView false (its rule: such a record must be removed from display). Either
 * takes the stored listing down (archived), whatever else the record carries or lacks.
 */
function removedBySource(f: ResoFields): boolean {
  return f.enumeration('StandardStatus') === 'delete' || f.flag('MlgCanView') === false;
}

function mapType(f: ResoFields): { category: Category; lease: boolean } {
  const raw = f.text('PropertyType');
  const type = raw ? TYPES[f.enumeration('PropertyType')!] : undefined;
  if (!raw) f.issues.warning('missing_property_type', 'no PropertyType; read as Residential', f.pathOf('PropertyType'));
  else if (!type) f.issues.warning('unknown_property_type', `PropertyType "${raw}" is not a RESO property type; read as Residential`, f.pathOf('PropertyType'));
  const mapped = type ?? TYPES.residential;
  if (mapped.category === 'commercial' && !mapped.lease && f.enumeration('PropertySubType') === 'unimprovedland')
    return { category: 'commercialLand', lease: false };
  return mapped;
}

/** ModificationTimestamp in the listing's zone; null (an error) when absent or not a timestamp. */
function readModTime(f: ResoFields, country: string, region: string | null | undefined): string | null {
  const raw = f.text('ModificationTimestamp');
  if (!raw) {
    f.issues.error('missing_mod_time', 'record has no ModificationTimestamp', f.pathOf('ModificationTimestamp'));
    return null;
  }
  const read = parseReaDate(raw, zoneFor(country, region ?? undefined));
  if (read.ok) return read.value;
  f.issues.error('invalid_mod_time', `ModificationTimestamp "${raw}" is not a timestamp`, f.pathOf('ModificationTimestamp'));
  return null;
}

/**
 * A record the source has taken off display: the stored listing is archived, with everything
 * else it holds kept (a removal is not a new version of the listing). It needs only its identity
 * and ModificationTimestamp; the newest-modTime rule applies as to any record.
 */
function removal(f: ResoFields, feed: FeedContext, office: string | undefined, uniqueId: string | undefined): ListingDelta | null {
  const [why, field] = f.flag('MlgCanView') === false ? ['MlgCanView is false', 'MlgCanView'] : ['StandardStatus is Delete', 'StandardStatus'];
  const address = mapResoAddress(f, feed);
  const modTime = readModTime(f, address?.country ?? feed.defaultCountry, address?.region);
  if (!office || !uniqueId || !modTime) return null;
  f.issues.warning('removed_by_source', `${why}: the source no longer allows this listing to be shown; it is taken down (archived)`, f.pathOf(field));
  const type = TYPES[f.enumeration('PropertyType') ?? ''];
  return { office, uniqueId, format: 'reso', category: type?.category ?? 'residential', modTime, status: 'archived', keepCategory: true };
}

/**
 * Maps one RESO Data Dictionary Property record to a canonical delta (docs/architecture.md, The canonical listing and Formats and mapping). A RESO
 * record is whole: every field the service keeps is set, absent ones to null, and media and
 * agents replace the stored lists. Vendor (local) fields are not kept. Pure; null when the record
 * cannot be identified, dated or given a status.
 */
export function mapResoRecord(f: ResoFields, feed: FeedContext): ListingDelta | null {
  const { issues } = f;
  const { office, uniqueId, officeProblem } = readResoIdentity(f, feed);
  if (uniqueId) issues.stampUniqueId(uniqueId);
  else issues.error('missing_unique_id', 'record has no ListingKey, ListingKeyNumeric or ListingId', f.pathOf('ListingKey'));
  if (!office)
    issues.error('missing_office_id', 'record has no ListOfficeKey or ListOfficeMlsId and the context gives no sourceOfficeId', f.pathOf('ListOfficeKey'));
  if (officeProblem) {
    const field = f.text('ListOfficeKey') ? 'ListOfficeKey' : 'ListOfficeMlsId';
    issues.error('invalid_office_id', `${field} ${officeProblem}; not stored`, f.pathOf(field));
  }

  if (removedBySource(f)) return removal(f, feed, office, uniqueId);
  const { category, lease } = mapType(f);
  const rawStatus = f.text('StandardStatus');
  let status: Status | undefined;
  if (!rawStatus) issues.error('missing_status', 'record has no StandardStatus', f.pathOf('StandardStatus'));
  else {
    const mapped = STATUSES[f.enumeration('StandardStatus')!];
    if (!mapped) issues.error('unknown_status', `StandardStatus "${rawStatus}" is not a RESO standard status`, f.pathOf('StandardStatus'));
    else status = mapped === 'closed' ? (lease ? 'leased' : 'sold') : mapped;
  }

  const address = mapResoAddress(f, feed);
  const country = address?.country ?? feed.defaultCountry;
  const modTime = readModTime(f, country, address?.region);
  if (!office || !uniqueId || !status || !modTime) return null;

  const currency = resolveCurrency(feed, country, issues, f.path);
  const description = f.text('PublicRemarks');
  const { media, links, officeLogo } = mapResoMedia(f);
  const closed = status === 'sold' || status === 'leased' ? mapClose(f, currency) : null;
  return {
    office,
    uniqueId,
    format: 'reso',
    category,
    modTime,
    status,
    saleMode: lease ? 'rent' : 'sale',
    subCategory: f.text('PropertySubType'),
    price: lease ? null : mapListPrice(f, currency),
    rent: lease ? mapLease(f, currency) : null,
    sold: closed,
    ...mapResoRooms(f),
    ...mapResoAreas(f, country),
    features: mapResoFeatures(f),
    address: address ?? null,
    location: address ? mapResoLocation(f, address) : null,
    headline: null,
    description: description ? { [feed.sourceLocale]: description } : null,
    links,
    dateAvailable: f.date('AvailabilityDate'),
    ...mapResoExtras(f, category, currency, country, officeLogo),
    ...mapResoOpenHouses(f, zoneFor(country, address?.region)),
    replace: { media, agents: mapResoAgents(f) },
  };
}
