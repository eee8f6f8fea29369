/** Small readers for REAXML scalar values. Each returns undefined when the text cannot be read. */

const TRUE = new Set(['yes', 'true', '1', 'y']);
const FALSE = new Set(['no', 'false', '0', 'n', '']);

/** yes/no, true/false, 1/0 in any case (REAXML partner docs); empty reads as false. */
export function readBoolean(raw: string): boolean | undefined {
  const v = raw.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  return undefined;
}

/** A money amount: digits with optional cents; tolerates "$" and thousands separators. */
export function readAmount(raw: string): { value: number; normalised: boolean } | undefined {
  const trimmed = raw.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    const value = Number(trimmed);
    return Number.isSafeInteger(Math.trunc(value)) ? { value, normalised: false } : undefined;
  }
  const cleaned = trimmed.replace(/^\$\s*/, '').replace(/,(?=\d{3}\b)/g, '');
  if (!/^\d+(\.\d+)?$/.test(cleaned)) return undefined;
  const value = Number(cleaned);
  return Number.isSafeInteger(Math.trunc(value)) ? { value, normalised: true } : undefined;
}

/**
 * A feature count: a whole number ("4", "4.00"), yes/no style booleans (yes = 1), empty = 0.
 * "Studio" (bedrooms) is 0. Returns undefined for anything else, including fractions like 4.5.
 */
export function readCount(raw: string): { value: number; studio?: true } | undefined {
  const v = raw.trim().toLowerCase();
  if (v === '') return { value: 0 };
  if (v === 'studio') return { value: 0, studio: true };
  if (/^\d+(\.0+)?$/.test(v)) return { value: Number(v) };
  const b = readBoolean(v);
  if (b !== undefined) return { value: b ? 1 : 0 };
  return undefined;
}

/** Square metres per REAXML area unit (docs/architecture.md, The canonical listing). */
const SQM_PER_UNIT: Readonly<Record<string, number>> = {
  squaremeter: 1,
  squaremeters: 1,
  squaremetre: 1,
  squaremetres: 1,
  sqm: 1,
  m2: 1,
  square: 9.290304,
  squares: 9.290304,
  acre: 4046.8564224,
  acres: 4046.8564224,
  hectare: 10000,
  hectares: 10000,
  ha: 10000,
  squarefeet: 0.09290304,
  squarefoot: 0.09290304,
  sqft: 0.09290304,
  ft2: 0.09290304,
};

export function sqmPerUnit(unit: string): number | undefined {
  return SQM_PER_UNIT[unit.replace(/[\s_-]/g, '').toLowerCase()];
}

/** A number for areas and coordinates: plain decimal only. */
export function readDecimal(raw: string): number | undefined {
  const v = raw.trim().replace(/,(?=\d{3}\b)/g, '');
  if (!/^[-+]?\d+(\.\d+)?$|^[-+]?\.\d+$/.test(v)) return undefined;
  return Number(v);
}

/** Template text left in by CRMs (REPLACE-THIS-TITLE and friends). */
export function isPlaceholderText(raw: string): boolean {
  return /^REPLACE-THIS-[A-Z-]+$/i.test(raw.trim());
}

/** Rounds square metres to 2 decimals so converted values hash and compare stably. */
export function roundSqm(value: number): number {
  return Math.round(value * 100) / 100;
}
