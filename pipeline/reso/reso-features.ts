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

/** An area field with its unit field, in square metres; null (with a warning) when the unit is missing or unknown. */
function area(f: ResoFields, field: string, unitField: string): number | null {
  const value = f.number(field);
  if (value === null || value <= 0) return null;
  const unit = f.text(unitField);
  if (unit === null) {
    f.issues.warning('missing_area_unit', `${field} ${value} has no ${unitField}; not kept`, f.pathOf(field));
    return null;
  }
  const factor = SQM_PER_UNIT[enumKey(unit)];
  if (factor === undefined) {
    f.issues.warning(
      'unknown_area_unit',
      `${unitField} "${unit}" is not Square Feet, Square Meters, Acres or Hectares; ${field} not kept`,
      f.pathOf(unitField),
    );
    return null;
  }
  return roundSqm(value * factor);
}

/** LivingArea (else BuildingAreaTotal) and LotSizeArea (else LotSizeSquareFeet, else LotSizeAcres). */
export function mapResoAreas(f: ResoFields): { buildingAreaSqm: number | null; landAreaSqm: number | null } {
  const building = f.has('LivingArea')
    ? area(f, 'LivingArea', 'LivingAreaUnits')
    : f.has('BuildingAreaTotal')
      ? area(f, 'BuildingAreaTotal', 'BuildingAreaUnits')
      : null;
  let land: number | null = null;
  if (f.has('LotSizeArea')) land = area(f, 'LotSizeArea', 'LotSizeUnits');
  else if (f.has('LotSizeSquareFeet')) land = roundSqm((f.number('LotSizeSquareFeet') ?? 0) * SQM_PER_UNIT.squarefeet) || null;
  else if (f.has('LotSizeAcres')) land = roundSqm((f.number('LotSizeAcres') ?? 0) * SQM_PER_UNIT.acres) || null;
  return { buildingAreaSqm: building, landAreaSqm: land };
}

/** BedroomsTotal; BathroomsTotalInteger, else the sum of BathroomsFull and BathroomsHalf (each half bath counts as one, as in BathroomsTotalInteger). */
export function mapResoRooms(f: ResoFields): { bedrooms: number | null; bathrooms: number | null } {
  const bedrooms = f.count('BedroomsTotal');
  let bathrooms = f.count('BathroomsTotalInteger');
  if (bathrooms === null && (f.has('BathroomsFull') || f.has('BathroomsHalf'))) bathrooms = (f.count('BathroomsFull') ?? 0) + (f.count('BathroomsHalf') ?? 0);
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
