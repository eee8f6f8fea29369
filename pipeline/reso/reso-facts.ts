import { legacyODataValue } from '../../lib/reso-lookups.js';
import type { ListingExtras, ListingOffice, Room } from '../types.js';
import { area, usualAreaUnit } from './reso-features.js';
import { FREQUENCIES, round2 } from './reso-money.js';
import { enumKey, type ResoFields } from './reso-values.js';

/**
 * Facts MLS exports carry that the core model has no field for, as typed extra fields (each null
 * when the record has nothing for it: a RESO record is whole).
 */
export type ResoFacts = { [K in (typeof RESO_FACT_FIELDS)[number]]: ListingExtras[K] | null };

export const RESO_FACT_FIELDS = [
  'listingOffices',
  'sourceStatus',
  'standardStatus',
  'listedDate',
  'daysOnMarket',
  'originalPrice',
  'parcelNumber',
  'directions',
  'bathroomParts',
  'stories',
  'annualTax',
  'associationFee',
  'waterfront',
  'rooms',
] as const satisfies readonly (keyof ListingExtras)[];

/**
 * ListOffice* and CoListOffice*: an office with no name, phone, email or key is none. The listing
 * office also carries the logo its listing's Media gives (MediaCategory Office Logo), and is there
 * for it alone when that is all the record says of it.
 */
function listingOffices(f: ResoFields, logoUrl: string | null): ListingOffice[] | null {
  const offices: ListingOffice[] = [];
  for (const [prefix, role] of [
    ['ListOffice', 'list'],
    ['CoListOffice', 'coList'],
  ] as const) {
    const office: ListingOffice = {
      role,
      name: f.text(`${prefix}Name`),
      phone: f.text(`${prefix}Phone`),
      email: f.text(`${prefix}Email`),
      sourceOfficeId: f.text(`${prefix}Key`) ?? f.text(`${prefix}MlsId`),
      ...(role === 'list' && logoUrl ? { logoUrl } : {}),
    };
    if (office.name || office.phone || office.email || office.sourceOfficeId || office.logoUrl) offices.push(office);
  }
  return offices.length ? offices : null;
}

/** A whole number of at least 0, else null (with a warning when the value is something else). */
function whole(f: ResoFields, field: string): number | null {
  const n = f.number(field);
  if (n === null) return null;
  if (n < 0 || !Number.isInteger(n)) {
    f.issues.warning('invalid_number', `${field} ${n} is not a whole number of at least 0; ignored`, f.pathOf(field));
    return null;
  }
  return n;
}

const PARTS = [
  ['BathroomsFull', 'full'],
  ['BathroomsThreeQuarter', 'threeQuarter'],
  ['BathroomsHalf', 'half'],
  ['BathroomsOneQuarter', 'oneQuarter'],
  ['BathroomsPartial', 'partial'],
] as const;

function bathroomParts(f: ResoFields): ListingExtras['bathroomParts'] | null {
  const out: NonNullable<ListingExtras['bathroomParts']> = {};
  for (const [field, key] of PARTS) {
    const n = whole(f, field);
    if (n !== null) out[key] = n;
  }
  return Object.keys(out).length ? out : null;
}

/** AssociationFee with AssociationFeeFrequency (the FeeFrequency lookup, as LeaseAmountFrequency); monthly when none is given, with a warning. */
function associationFee(f: ResoFields, currency: string): ListingExtras['associationFee'] | null {
  const amount = f.number('AssociationFee');
  if (amount === null || amount <= 0) return null;
  const raw = f.text('AssociationFeeFrequency');
  if (raw === null) {
    f.issues.warning('missing_fee_frequency', 'AssociationFee has no AssociationFeeFrequency; read as monthly', f.pathOf('AssociationFee'));
    return { amount, currency, period: 'month', text: null };
  }
  const frequency = FREQUENCIES[enumKey(raw)];
  if (!frequency) return { amount: null, currency, period: null, text: `${amount} ${raw}` };
  return { amount: round2(amount * frequency.factor), currency, period: frequency.period, text: null };
}

/** The Rooms collection (an array of room records); a room with nothing but a key is none. */
function rooms(f: ResoFields, country: string): Room[] | null {
  const out: Room[] = [];
  for (const { entry: r } of f.collection('Rooms', 'invalid_field_type')) {
    const room: Room = {
      type: r.text('RoomType'),
      level: r.text('RoomLevel'),
      dimensions: r.text('RoomDimensions'),
      areaSqm: area(r, 'RoomArea', 'RoomAreaUnits', 'not kept', usualAreaUnit(country)),
      description: r.text('RoomDescription'),
    };
    if (Object.values(room).some((v) => v !== null)) out.push(room);
  }
  return out.length ? out : null;
}

/** StandardStatus in the Data Dictionary's spelling (`Active Under Contract` is `ActiveUnderContract`), or null. */
function standardStatus(f: ResoFields): string | null {
  const raw = f.text('StandardStatus');
  return raw ? legacyODataValue('StandardStatus', raw) : null;
}

/**
 * ListOffice* and CoListOffice* (listingOffices), MlsStatus, StandardStatus, ListingContractDate, DaysOnMarket,
 * OriginalListPrice, ParcelNumber, Directions, the bathroom counts by kind, StoriesTotal,
 * TaxAnnualAmount with TaxYear, AssociationFee with its frequency, WaterfrontYN and Rooms.
 */
export function mapResoFacts(f: ResoFields, currency: string, country: string, officeLogo: string | null): ResoFacts {
  const original = f.number('OriginalListPrice');
  const tax = f.number('TaxAnnualAmount');
  const stories = f.number('StoriesTotal');
  return {
    listingOffices: listingOffices(f, officeLogo),
    sourceStatus: f.text('MlsStatus'),
    standardStatus: standardStatus(f),
    listedDate: f.date('ListingContractDate'),
    daysOnMarket: whole(f, 'DaysOnMarket'),
    originalPrice: original !== null && original > 0 ? { amount: original, currency } : null,
    parcelNumber: f.text('ParcelNumber'),
    directions: f.text('Directions'),
    bathroomParts: bathroomParts(f),
    stories: stories !== null && stories > 0 ? stories : null,
    annualTax: tax !== null && tax > 0 ? { amount: tax, currency, year: whole(f, 'TaxYear') } : null,
    associationFee: associationFee(f, currency),
    waterfront: f.flag('WaterfrontYN'),
    rooms: rooms(f, country),
  };
}
