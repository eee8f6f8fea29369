import type { Category, ListingDelta, ListingExtras } from '../types.js';
import { mapResoFacts, RESO_FACT_FIELDS } from './reso-facts.js';
import { enumKey, type ResoFields } from './reso-values.js';

/** The extra fields a RESO record can carry (Data Dictionary 2.0 names); a record is whole, so each is set or null. */
export const RESO_EXTRA_FIELDS = [
  'yearBuilt',
  'newConstruction',
  'exclusivity',
  'allowances',
  'views',
  'ecoFriendly',
  'municipality',
  'estate',
  'commercial',
  'business',
  'rural',
  'internetDisplay',
  ...RESO_FACT_FIELDS,
] as const satisfies readonly (keyof ListingExtras)[];

type ResoExtras = Pick<ListingDelta, (typeof RESO_EXTRA_FIELDS)[number]>;

/** ListingAgreement: the exclusive agreements and the open one; others (Probate, Net, …) say nothing about exclusivity. */
const AGREEMENTS: Readonly<Record<string, 'exclusive' | 'open'>> = {
  exclusiveagency: 'exclusive',
  exclusiverighttosell: 'exclusive',
  exclusiverighttolease: 'exclusive',
  exclusiverightwithexception: 'exclusive',
  open: 'open',
};

/** PetsAllowed lookups that allow some pets; "No" alone refuses them; "Call" and the limits without a yes say nothing. */
const PETS_YES = new Set(['yes', 'catsok', 'dogsok', 'breedrestrictions', 'sizelimit', 'numberlimit']);

/** OccupantType: a tenant or vacant possession (an owner-occupier says nothing about a lease). */
const OCCUPANT: Readonly<Record<string, 'tenanted' | 'vacant'>> = { tenant: 'tenanted', vacant: 'vacant' };

const COMMERCIAL: ReadonlySet<Category> = new Set(['commercial', 'commercialLand', 'business']);

function year(f: ResoFields, field: string): number | null {
  const n = f.number(field);
  if (n === null) return null;
  if (!Number.isInteger(n) || n < 1700 || n > 2200) {
    f.issues.warning('invalid_number', `${field} ${n} is not a plausible year; ignored`, f.pathOf(field));
    return null;
  }
  return n;
}

/** The Internet*YN display rules and IDXParticipationYN, each only when given. */
const DISPLAY_FIELDS = [
  ['InternetEntireListingDisplayYN', 'listing'],
  ['InternetAddressDisplayYN', 'address'],
  ['InternetAutomatedValuationDisplayYN', 'automatedValuation'],
  ['InternetConsumerCommentYN', 'consumerComments'],
  ['IDXParticipationYN', 'idxParticipation'],
] as const;

function internetDisplay(f: ResoFields): ListingExtras['internetDisplay'] | null {
  const out: NonNullable<ListingExtras['internetDisplay']> = {};
  for (const [field, key] of DISPLAY_FIELDS) {
    const flag = f.flag(field);
    if (flag !== null) out[key] = flag;
  }
  return Object.keys(out).length ? out : null;
}

function allowances(f: ResoFields): ListingExtras['allowances'] | null {
  const out: NonNullable<ListingExtras['allowances']> = {};
  const pets = f.values('PetsAllowed').map(enumKey);
  if (pets.some((p) => PETS_YES.has(p))) out.pets = true;
  else if (pets.includes('no')) out.pets = false;
  const furnished = f.enumeration('Furnished');
  if (furnished === 'furnished' || furnished === 'partially') out.furnished = true;
  else if (furnished === 'unfurnished') out.furnished = false;
  return Object.keys(out).length ? out : null;
}

function commercial(f: ResoFields, currency: string): ListingExtras['commercial'] | null {
  const out: NonNullable<ListingExtras['commercial']> = {};
  const zone = f.text('Zoning');
  if (zone) out.zone = zone;
  const tenancy = OCCUPANT[f.enumeration('OccupantType') ?? ''];
  if (tenancy) out.tenancy = tenancy;
  const leaseEnd = f.date('LeaseExpiration');
  if (leaseEnd) out.currentLeaseEndDate = leaseEnd;
  const capRate = f.number('CapRate');
  if (capRate !== null) out.return = capRate;
  const expense = f.number('OperatingExpense');
  if (expense !== null && expense > 0) out.outgoings = { amount: expense, currency, period: 'year' };
  const parking = f.count('ParkingTotal');
  if (parking !== null) out.carSpaces = parking;
  return Object.keys(out).length ? out : null;
}

function rural(f: ResoFields): ListingExtras['rural'] | null {
  const out: NonNullable<ListingExtras['rural']> = {};
  const join = (field: string) => f.values(field).join(', ');
  const fencing = join('Fencing');
  if (fencing) out.fencing = fencing;
  const irrigation = join('IrrigationSource');
  if (irrigation) out.irrigation = irrigation;
  const services = join('Utilities');
  if (services) out.services = services;
  return Object.keys(out).length ? out : null;
}

/**
 * The extra fields from their RESO Data Dictionary 2.0 counterparts: YearBuilt, NewConstructionYN,
 * ListingAgreement (exclusivity), PetsAllowed and Furnished (allowances), View, the Green* lists
 * (ecoFriendly), CountyOrParish (municipality), SubdivisionName (estate); for commercial kinds
 * Zoning, OccupantType, LeaseExpiration, CapRate, OperatingExpense and ParkingTotal; BusinessType;
 * for farms Fencing, IrrigationSource and Utilities; the Internet*YN display rules and
 * IDXParticipationYN (internetDisplay); and the facts of reso-facts.ts. Every one is set (null when the record has nothing for
 * it), as a RESO record is whole.
 */
export function mapResoExtras(f: ResoFields, category: Category, currency: string, country: string, officeLogo: string | null): ResoExtras {
  const list = (...fields: string[]) => {
    const values = fields.flatMap((field) => f.values(field)).filter((v) => enumKey(v) !== 'none');
    return values.length ? values : null;
  };
  const subdivision = f.text('SubdivisionName');
  const businessTypes = f.values('BusinessType');
  return {
    yearBuilt: year(f, 'YearBuilt'),
    newConstruction: f.flag('NewConstructionYN'),
    exclusivity: AGREEMENTS[f.enumeration('ListingAgreement') ?? ''] ?? null,
    allowances: allowances(f),
    views: list('View'),
    ecoFriendly: list('GreenEnergyEfficient', 'GreenEnergyGeneration', 'GreenWaterConservation', 'GreenSustainability'),
    municipality: f.text('CountyOrParish'),
    estate: subdivision ? { name: subdivision, stage: null } : null,
    commercial: COMMERCIAL.has(category) ? commercial(f, currency) : null,
    business: category === 'business' && businessTypes.length ? { categories: businessTypes.map((name) => ({ name, subCategory: null })) } : null,
    rural: category === 'rural' ? rural(f) : null,
    internetDisplay: internetDisplay(f),
    ...mapResoFacts(f, currency, country, officeLogo),
  };
}
