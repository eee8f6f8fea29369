import { DD_LOOKUP_VALUES } from './reso-dd-lookups.js';

/**
 * The lookups (enumerations) of the RESO surface, in the one style the Data Dictionary 2.0
 * recommends and RESO's reference server uses by default (docs/reso.md, Lookups): every lookup
 * field is an `Edm.String` annotated with its `RESO.OData.Metadata.LookupName`, its values are the
 * Data Dictionary's human-friendly display names ("Active Under Contract"), and the `Lookup`
 * resource lists them. No EnumType is declared.
 */

/** The namespace of the metadata; `$filter` still takes a lookup value written as an enumeration member of it. */
export const METADATA_NAMESPACE = 'org.reso.metadata';
/** The namespace the enumerations had in a Schema of their own: `$filter` takes members qualified by it too. */
export const FORMER_ENUM_NAMESPACE = 'org.reso.metadata.enums';

/** LookupNames whose Data Dictionary values are known (lib/reso-dd-lookups.ts). */
export type StandardLookupName = keyof typeof DD_LOOKUP_VALUES;

/**
 * The lookups whose values the service itself makes (a listing's status is mapped, not passed
 * on): the Lookup resource lists every value the Data Dictionary defines for them. The other
 * lookup fields (City, MlsStatus, PropertySubType, StateOrProvince, Country) carry the feed's
 * text, and the Lookup resource lists the values the public listings hold.
 */
export const MAPPED_LOOKUPS = [
  'StandardStatus',
  'PropertyType',
  'FeeFrequency',
  'AreaUnits',
  'LotSizeUnits',
  'MediaCategory',
  'ResourceName',
  'OpenHouseStatus',
] as const;
export type MappedLookup = (typeof MAPPED_LOOKUPS)[number];

/** Lookups whose values come from the listings (the feed's text). */
export const DATA_LOOKUPS = ['MlsStatus', 'PropertySubType', 'City', 'StateOrProvince', 'Country'] as const;

const squash = (value: string) => value.replace(/[^A-Za-z0-9]/g, '').toLowerCase();

/** The Data Dictionary's display value of a lookup written any way a client may (`ActiveUnderContract`, `active under contract`); null when it is none. */
export function standardLookupValue(lookup: string, value: string): string | null {
  const values = (DD_LOOKUP_VALUES as Record<string, readonly (readonly [string, string])[]>)[lookup];
  if (!values) return null;
  const key = squash(value);
  return values.find(([standard, legacy]) => squash(standard) === key || squash(legacy) === key)?.[0] ?? null;
}

/** The display value of a Data Dictionary lookup value, checked when the module loads (a misspelt mapping fails every test). */
export function lookupValue(lookup: MappedLookup, standard: string): string {
  if (!DD_LOOKUP_VALUES[lookup].some(([value]) => value === standard)) throw new Error(`${standard} is not a ${lookup} value of the Data Dictionary`);
  return standard;
}

/** The legacy OData values (SimpleIdentifiers: `ActiveUnderContract`) of a Data Dictionary lookup: the spelling the canonical listing keeps. */
export const legacyODataValues = (lookup: StandardLookupName): string[] => DD_LOOKUP_VALUES[lookup].map(([, legacy]) => legacy);

/** A lookup value written any way a client may, as its legacy OData value (`Active Under Contract` is `ActiveUnderContract`); null when it is none. */
export function legacyODataValue(lookup: StandardLookupName, value: string): string | null {
  const key = squash(value);
  return DD_LOOKUP_VALUES[lookup].find(([standard, legacy]) => squash(standard) === key || squash(legacy) === key)?.[1] ?? null;
}
