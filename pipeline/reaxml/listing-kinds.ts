import type { Category } from '../types.js';

/** The eight REAXML listing elements; each is also a canonical category. */
export const LISTING_KINDS: ReadonlySet<string> = new Set<Category>([
  'residential',
  'rental',
  'land',
  'rural',
  'commercial',
  'commercialLand',
  'business',
  'holidayRental',
]);

/** Root-level elements of REAXML 1.62 that are not listings and carry nothing we keep. */
export const KNOWN_ROOT_EXTRAS: ReadonlySet<string> = new Set(['companyName', 'techContactName', 'techContactPhone', 'techContactEmail']);
