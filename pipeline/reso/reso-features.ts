import { roundSqm } from '../reaxml/values.js';
import { enumKey, type ResoFields } from './reso-values.js';

/** AreaUnits and LotSizeUnits (both spellings) in square metres; Hectares is a local value AU feeds use. */
const SQM_PER_UNIT: Readonly<Record<string, number>> = {
  squarefeet: 0.09290304,
  squaremeters: 1,
  squaremetres: 1,
  acres: 4046.8564224,
  hectares: 10000,
};

/** Countries whose feeds give floor areas in square feet when they do not say (MLS practice in the US and Canada). */
const SQUARE_FEET_COUNTRIES = new Set(['US', 'CA']);

/**
 * An area field with its unit field, in square metres; null when the field is absent or not
 * positive, or (with a warning saying what else is tried) when its unit is missing or unknown.
 * assumed: the unit to read a value without one in, and why.
 */
export function area(f: ResoFields, field: string, unitField: string, fallback: string, assumed?: { unit: string; why: string }): number | null {
  const value = f.number(field);
  if (value === null || value <= 0) return null;
  const unit = f.text(unitField);
  if (unit === null) {
    if (assumed) {
      f.issues.warning('area_unit_assumed', `${field} ${value} has no ${unitField}; read as ${assumed.unit}, ${assumed.why}`, f.pathOf(field));
      return roundSqm(value * SQM_PER_UNIT[enumKey(assumed.unit)]);
    }
    f.issues.warning('missing_area_unit', `${field} ${value} has no ${unitField}; ${fallback}`, f.pathOf(field));
    return null;
  }
  const factor = SQM_PER_UNIT[enumKey(unit)];
  if (factor === undefined) {
    f.issues.warning('unknown_area_unit', `${unitField} "${unit}" is not Square Feet, Square Meters, Acres or Hectares; ${fallback}`, f.pathOf(unitField));
    return null;
  }
  return roundSqm(value * factor);
}

/** A positive number of the given unit in square metres, or null. */
const inUnit = (f: ResoFields, field: string, unit: keyof typeof SQM_PER_UNIT) => {
  const value = f.number(field);
  return value !== null && value > 0 ? roundSqm(value * SQM_PER_UNIT[unit]) || null : null;
};

/** The unit a floor or room area without one is read in: square feet in the US and Canada, square metres elsewhere. */
export function usualAreaUnit(country: string): { unit: string; why: string } {
  return { unit: SQUARE_FEET_COUNTRIES.has(country) ? 'Square Feet' : 'Square Meters', why: `the usual unit in ${country} feeds` };
}

/**
 * The floor area: LivingArea, else BuildingAreaTotal, each with its units; a LivingArea without
 * units is read in the country's usual unit (square feet in the US and Canada, square metres
 * elsewhere) with a warning. The land area: LotSizeArea with LotSizeUnits, and whenever that
 * cannot be converted (no units, unknown units), LotSizeSquareFeet, else LotSizeAcres.
 */
export function mapResoAreas(f: ResoFields, country: string): { buildingAreaSqm: number | null; landAreaSqm: number | null } {
  const usual = usualAreaUnit(country);
  const building = area(f, 'LivingArea', 'LivingAreaUnits', 'not kept', usual) ?? area(f, 'BuildingAreaTotal', 'BuildingAreaUnits', 'not kept');
  const lotFallback = f.has('LotSizeSquareFeet') ? 'LotSizeSquareFeet used instead' : f.has('LotSizeAcres') ? 'LotSizeAcres used instead' : 'not kept';
  const land = area(f, 'LotSizeArea', 'LotSizeUnits', lotFallback) ?? inUnit(f, 'LotSizeSquareFeet', 'squarefeet') ?? inUnit(f, 'LotSizeAcres', 'acres');
  return { buildingAreaSqm: building, landAreaSqm: land };
}

/**
 * BedroomsTotal; BathroomsTotalInteger, else the sum of BathroomsFull and BathroomsHalf (each half
 * bath counts as one, as in BathroomsTotalInteger). A BathroomsTotalInteger that is not a whole
 * number (1.1) is not trusted: the parts are used when given, else its whole part, with a warning.
 */
export function mapResoRooms(f: ResoFields): { bedrooms: number | null; bathrooms: number | null } {
  const bedrooms = f.count('BedroomsTotal');
  const hasParts = f.has('BathroomsFull') || f.has('BathroomsHalf');
  let bathrooms = f.count('BathroomsTotalInteger');
  if (bathrooms !== null && !Number.isInteger(bathrooms)) {
    const instead = hasParts ? 'BathroomsFull and BathroomsHalf used' : `read as ${Math.floor(bathrooms)}`;
    f.issues.warning('invalid_number', `BathroomsTotalInteger ${bathrooms} is not a whole number; ${instead}`, f.pathOf('BathroomsTotalInteger'));
    bathrooms = hasParts ? null : Math.floor(bathrooms);
  }
  if (bathrooms === null && hasParts) bathrooms = (f.count('BathroomsFull') ?? 0) + (f.count('BathroomsHalf') ?? 0);
  return { bedrooms, bathrooms };
}

const NONE = new Set(['none', 'no', '']);

/**
 * Features under the names REAXML listings use: garages, carports, pool, airConditioning,
 * heating (the first kind listed), fireplace. Multi-valued lookups arrive as arrays or as
 * comma-separated strings.
 */
export function mapResoFeatures(f: ResoFields): Record<string, number | boolean | string | null> {
  const out: Record<string, number | boolean | string | null> = {};
  const garages = f.count('GarageSpaces');
  if (garages !== null) out.garages = garages;
  const carports = f.count('CarportSpaces');
  if (carports !== null) out.carports = carports;
  const pool = f.flag('PoolPrivateYN');
  if (pool !== null) out.pool = pool;
  const cooling = f.values('Cooling');
  if (cooling.length) out.airConditioning = cooling.some((c) => !NONE.has(enumKey(c)));
  const heating = f.values('Heating').filter((h) => !NONE.has(enumKey(h)));
  if (f.has('Heating')) out.heating = heating[0] ?? null;
  const fireplace = f.flag('FireplaceYN');
  if (fireplace !== null) out.fireplace = fireplace;
  return out;
}
