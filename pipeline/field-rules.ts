import { extraProperties, type listingSchema } from './listing-schema.js';

/** A field of the canonical listing: a property of its schema (the types in types.ts are derived from the same). */
type ListingField = keyof (typeof listingSchema)['properties'];

/**
 * How a delta changes each field of the stored listing, one rule per field of the schema (the
 * compiler asks for a rule when a field is added): identity fields never change; `record` fields are
 * set by every record (category unless the record keeps it, saleMode and bothPrices when given);
 * `replaced` fields are replaced whole when the delta carries them (an extra field set to null is
 * removed); `slots` are merged slot by slot, or replaced by a whole record's lists; features are
 * merged key by key; `service` fields are the service's own (an operator's hiding, the content hash).
 */
export const FIELD_RULES = {
  listingKey: 'identity',
  office: 'identity',
  uniqueId: 'identity',
  format: 'record',
  category: 'record',
  saleMode: 'record',
  bothPrices: 'record',
  status: 'record',
  modTime: 'record',
  subCategory: 'replaced',
  price: 'replaced',
  rent: 'replaced',
  sold: 'replaced',
  bond: 'replaced',
  bedrooms: 'replaced',
  bathrooms: 'replaced',
  features: 'features',
  landAreaSqm: 'replaced',
  buildingAreaSqm: 'replaced',
  address: 'replaced',
  location: 'replaced',
  media: 'slots',
  agents: 'slots',
  headline: 'replaced',
  description: 'replaced',
  auction: 'replaced',
  dateAvailable: 'replaced',
  inspections: 'replaced',
  links: 'replaced',
  hidden: 'service',
  projectKey: 'replaced',
  ...(Object.fromEntries(Object.keys(extraProperties).map((field) => [field, 'replaced'])) as Record<keyof typeof extraProperties, 'replaced'>),
  contentHash: 'service',
} as const satisfies Record<ListingField, 'identity' | 'record' | 'replaced' | 'slots' | 'features' | 'service'>;

/** The fields a delta replaces whole when it carries them. */
export type ReplacedField = { [K in keyof typeof FIELD_RULES]: (typeof FIELD_RULES)[K] extends 'replaced' ? K : never }[keyof typeof FIELD_RULES];
export const REPLACED_FIELDS = (Object.keys(FIELD_RULES) as (keyof typeof FIELD_RULES)[]).filter(
  (field): field is ReplacedField => FIELD_RULES[field] === 'replaced',
);
