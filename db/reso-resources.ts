import { DD_LOOKUP_VALUES } from '../lib/reso-dd-lookups.js';
import { DATA_LOOKUPS, lookupValue, MAPPED_LOOKUPS, type MappedLookup } from '../lib/reso-lookups.js';
import { READABLE_STATUSES_SQL } from '../pipeline/listing-statuses.js';
import { numberAt, publicField } from './search-columns.js';

/**
 * The RESO resources the service serves (docs/reso.md): each field with its RESO Data Dictionary
 * 2.0 name, its OData type and the SQL of its value in the public form of the record. Filters,
 * orders and answers are all made from these expressions, so no query reads a value the public
 * may not see (a withheld price is null here as in every public read).
 */

/** How a field's value is typed in SQL and OData. */
export type FieldType =
  /** A lookup field is a string whose values the Lookup resource lists under `lookup` (its LookupName): docs/reso.md, Lookups. */
  | { edm: 'Edm.String'; maxLength?: number; lookup?: string }
  | { edm: 'Edm.Decimal'; precision: number; scale: number }
  | { edm: 'Edm.Int32' }
  | { edm: 'Edm.Int64' }
  | { edm: 'Edm.Date' }
  | { edm: 'Edm.DateTimeOffset' }
  | { edm: 'Edm.Boolean' };

export interface ResoField {
  name: string;
  type: FieldType;
  /** The value's SQL over the resource's row (text for strings, dates and enumerations). */
  sql: string;
  /** Not a Data Dictionary field: a local one, said so in docs/reso.md. */
  local?: true;
  /** Never null (a key, a timestamp column): paging after a row can then use a row comparison, which an index answers. */
  notNull?: true;
  /** A trigram index of lower(sql) exists: contains/startswith/endswith on the field look it up (db/reso-query.ts). */
  lowerTrigramIndex?: true;
}

export interface ResoResource {
  name: 'Property' | 'Member' | 'Office' | 'Media' | 'OpenHouse' | 'EntityEvent' | 'Lookup';
  key: string;
  /** FROM clause (one row per entity). */
  from: string;
  /** Which rows the public may see. */
  visible: string;
  /** The SQL of the key, for ordering and fetching by key (indexed where it matters). */
  keySql: string;
  /**
   * When keySql is not an indexed column (a Media record is an element of its listing's media):
   * the indexed key of the row the record comes from, which with keySql finds the record again.
   */
  rowKeySql?: string;
  fields: ResoField[];
}

const str = (name: string, sql: string, maxLength = 255): ResoField => ({ name, type: { edm: 'Edm.String', maxLength }, sql });
const money = (name: string, sql: string): ResoField => ({ name, type: { edm: 'Edm.Decimal', precision: 14, scale: 2 }, sql });
const int = (name: string, sql: string): ResoField => ({ name, type: { edm: 'Edm.Int32' }, sql });
const decimal = (name: string, sql: string, precision = 14, scale = 2): ResoField => ({ name, type: { edm: 'Edm.Decimal', precision, scale }, sql });
const date = (name: string, json: string): ResoField => ({
  name,
  type: { edm: 'Edm.Date' },
  sql: `CASE WHEN ${json} ~ '^\\d{4}-\\d{2}-\\d{2}' THEN left(${json}, 10) END`,
});
const bool = (name: string, json: string): ResoField => ({
  name,
  type: { edm: 'Edm.Boolean' },
  sql: `CASE WHEN jsonb_typeof(${json}) = 'boolean' THEN (${json})::text::boolean END`,
});
/** A lookup field (String List, Single in the Data Dictionary): an Edm.String of the values its LookupName lists. */
const lookupField = (name: string, lookup: string, sql: string, maxLength: number): ResoField => ({
  name,
  type: { edm: 'Edm.String', maxLength, lookup },
  sql,
});
/** A Data Dictionary display value as an SQL literal (checked against the Data Dictionary when the module loads). */
const dd = (lookup: MappedLookup, value: string) => `'${lookupValue(lookup, value)}'`;
const sqlText = (text: string) => `'${text.replace(/'/g, "''")}'`;

const address = (part: string) => `${publicField('address')}->>'${part}'`;
const rent = publicField('rent');
const price = publicField('price');
const isRent = `data->>'saleMode' = 'rent'`;
/** The asking price (or rent) the public sees now. */
const LIST_PRICE = `CASE WHEN ${isRent} THEN ${numberAt(`${rent}->'amount'`)} ELSE ${numberAt(`${price}->'amount'`)} END`;
const primaryAgent = `public_patch->'primaryAgent'`;

/**
 * History fields from the change log (db/change-log.ts): an amount as the public saw it when it
 * applied (`column` of the listing's log rows matching the rest, which the caller closes), and
 * none while the agent withholds the price now, as a listing's public history.
 */
const loggedAmount = (column: string) =>
  `(SELECT (c.${column}->>'amount')::numeric FROM change_log c WHERE c.resource = 'Property' AND c.record_key = listing_key`;
const priceWhileShown = (amount: string) => `CASE WHEN ${LIST_PRICE} IS NOT NULL THEN ${amount} END`;
/** When the listing's latest log row matching `condition` was written. */
const lastLogged = (condition: string) =>
  `(SELECT c.changed_at FROM change_log c WHERE c.resource = 'Property' AND c.record_key = listing_key AND ${condition} ORDER BY c.id DESC LIMIT 1)`;

/** Every listing a public read may show: shown (not hidden, allowed on the internet by its source), on the market or sold or leased (columns of `alias`, if given). */
const visibleListing = (alias = '') => `${alias}is_shown AND ${alias}status IN ${READABLE_STATUSES_SQL}`;

const PROPERTY_FIELDS: ResoField[] = [
  { ...str('ListingKey', 'listing_key'), notNull: true },
  str('ListingId', `data->>'uniqueId'`),
  lookupField(
    'StandardStatus',
    'StandardStatus',
    // Pending and Active Under Contract are both under_offer: the source's own value (standardStatus) tells them apart.
    `CASE status WHEN 'active' THEN ${dd('StandardStatus', 'Active')}
       WHEN 'under_offer' THEN CASE WHEN data->>'standardStatus' = 'Pending' THEN ${dd('StandardStatus', 'Pending')} ELSE ${dd('StandardStatus', 'Active Under Contract')} END
       WHEN 'sold' THEN ${dd('StandardStatus', 'Closed')} WHEN 'leased' THEN ${dd('StandardStatus', 'Closed')} END`,
    25,
  ),
  lookupField('MlsStatus', 'MlsStatus', `${publicField('sourceStatus')} #>> '{}'`, 50),
  lookupField(
    'PropertyType',
    'PropertyType',
    `CASE data->>'category'
       WHEN 'residential' THEN CASE WHEN ${isRent} THEN ${dd('PropertyType', 'Residential Lease')} ELSE ${dd('PropertyType', 'Residential')} END
       WHEN 'rental' THEN ${dd('PropertyType', 'Residential Lease')} WHEN 'holidayRental' THEN ${dd('PropertyType', 'Residential Lease')}
       WHEN 'land' THEN ${dd('PropertyType', 'Land')} WHEN 'rural' THEN ${dd('PropertyType', 'Farm')}
       WHEN 'commercial' THEN CASE WHEN ${isRent} THEN ${dd('PropertyType', 'Commercial Lease')} ELSE ${dd('PropertyType', 'Commercial Sale')} END
       WHEN 'commercialLand' THEN ${dd('PropertyType', 'Commercial Sale')}
       WHEN 'business' THEN ${dd('PropertyType', 'Business Opportunity')} END`,
    50,
  ),
  lookupField('PropertySubType', 'PropertySubType', `data->>'subCategory'`, 50),
  money('ListPrice', LIST_PRICE),
  money('LeaseAmount', `CASE WHEN ${isRent} THEN ${numberAt(`${rent}->'amount'`)} END`),
  lookupField(
    'LeaseAmountFrequency',
    'FeeFrequency',
    `CASE WHEN ${isRent} THEN CASE ${rent}->>'period' WHEN 'week' THEN ${dd('FeeFrequency', 'Weekly')} WHEN 'month' THEN ${dd('FeeFrequency', 'Monthly')} WHEN 'year' THEN ${dd('FeeFrequency', 'Annually')} END END`,
    25,
  ),
  money('ClosePrice', `CASE WHEN status IN ('sold', 'leased') THEN ${numberAt(`${publicField('sold')}->'price'->'amount'`)} END`),
  date('CloseDate', `(CASE WHEN status IN ('sold', 'leased') THEN data->'sold'->>'date' END)`),
  {
    ...str('CurrencyCode', `coalesce(${price}->>'currency', ${rent}->>'currency', ${publicField('sold')}->'price'->>'currency')`, 3),
    local: true,
  },
  int('BedroomsTotal', 'trunc(bedrooms)::int'),
  int('BathroomsTotalInteger', 'trunc(bathrooms)::int'),
  decimal('GarageSpaces', numberAt(`data->'features'->'garages'`)),
  decimal('CarportSpaces', numberAt(`data->'features'->'carports'`)),
  decimal('ParkingTotal', 'car_spaces'),
  decimal('LivingArea', numberAt(`data->'buildingAreaSqm'`)),
  lookupField('LivingAreaUnits', 'AreaUnits', `CASE WHEN jsonb_typeof(data->'buildingAreaSqm') = 'number' THEN ${dd('AreaUnits', 'Square Meters')} END`, 25),
  decimal('LotSizeArea', 'land_area', 16, 4),
  lookupField('LotSizeUnits', 'LotSizeUnits', `CASE WHEN land_area IS NOT NULL THEN ${dd('LotSizeUnits', 'Square Meters')} END`, 25),
  int('YearBuilt', `trunc(${numberAt(`data->'yearBuilt'`)})::int`),
  int('StoriesTotal', `trunc(${numberAt(`data->'stories'`)})::int`),
  bool('NewConstructionYN', `data->'newConstruction'`),
  bool('WaterfrontYN', `data->'waterfront'`),
  str('UnparsedAddress', `public_patch->>'addressLine'`),
  str('StreetNumber', address('streetNumber'), 25),
  str('StreetName', address('street'), 50),
  str('UnitNumber', address('subNumber'), 25),
  // contains(City,…) and tolower(City) are planned on an index (db/migrations/20261128150000_reso_text_indexes.ts); so is startswith(PostalCode,…).
  { ...lookupField('City', 'City', address('locality'), 50), lowerTrigramIndex: true },
  // The Data Dictionary suggests 2 (US and Canadian codes); Australian states are 3 letters (VIC) and feeds may give names.
  lookupField('StateOrProvince', 'StateOrProvince', address('region'), 50),
  str('PostalCode', address('postcode'), 10),
  lookupField('Country', 'Country', address('country'), 2),
  bool('InternetAddressDisplayYN', `data->'address'->'display'`),
  decimal('Latitude', numberAt(`${publicField('location')}->'lat'`), 12, 8),
  decimal('Longitude', numberAt(`${publicField('location')}->'lng'`), 12, 8),
  str('PublicRemarks', `jsonb_path_query_first(data, '$.description.*') #>> '{}'`, 4000),
  str('ListOfficeKey', 'office'),
  str('ListAgentKey', `${primaryAgent}->>'id'`),
  str('ListAgentFullName', `${primaryAgent}->>'name'`, 150),
  str('ListAgentEmail', `${primaryAgent}->>'email'`, 80),
  int('PhotosCount', `jsonb_array_length(jsonb_path_query_array(coalesce(data->'media', '[]'::jsonb), '$[*] \\? (@.kind == "photo" && exists(@.url))'))`),
  money('OriginalListPrice', priceWhileShown(`${loggedAmount('new_price')} AND c.kind = 'published' ORDER BY c.id LIMIT 1)`)),
  money('PreviousListPrice', priceWhileShown(`${loggedAmount('old_price')} AND c.kind = 'price_changed' ORDER BY c.id DESC LIMIT 1)`)),
  { name: 'PriceChangeTimestamp', type: { edm: 'Edm.DateTimeOffset' }, sql: lastLogged(`c.kind = 'price_changed'`) },
  {
    name: 'StatusChangeTimestamp',
    type: { edm: 'Edm.DateTimeOffset' },
    sql: lastLogged(`c.kind IN ('published', 'status_changed') AND (c.public_before OR c.public_after)`),
  },
  date('ListingContractDate', `(data->>'listedDate')`),
  date('AvailabilityDate', `(data->>'dateAvailable')`),
  { name: 'OriginalEntryTimestamp', type: { edm: 'Edm.DateTimeOffset' }, sql: 'created_at', notNull: true },
  { name: 'ModificationTimestamp', type: { edm: 'Edm.DateTimeOffset' }, sql: 'updated_at', notNull: true },
];

/**
 * An open house's key: its listing's key and its start (UTC), so the same open home keeps its key
 * whichever feed carries it (as the calendars' UIDs: docs/reads.md, Calendars).
 */
const OPEN_HOUSE_KEY = `e.listing_key || '/' || to_char(e.starts_at AT TIME ZONE 'UTC', 'YYYYMMDD"T"HH24MISS"Z"')`;

const MEDIA_KINDS = `CASE m.item->>'kind' WHEN 'photo' THEN ${dd('MediaCategory', 'Photo')} WHEN 'floorplan' THEN ${dd('MediaCategory', 'Floor Plan')} WHEN 'document' THEN ${dd('MediaCategory', 'Document')} END`;

/** The resources whose changes EntityEvent names (Media changes with its Property: docs/reso.md, Replication). */
export const EVENT_RESOURCES = ['Property', 'Member', 'Office'] as const;

/**
 * RESO EntityEvent (RCP-027) over the change log: every numbered event of a record that was public
 * before or after it, within the log's window. ResourceRecordUrl is the resource's name and the
 * record's key here; the route makes the URL of them (api/reso/entity-events.ts).
 */
const ENTITY_EVENT: ResoResource = {
  name: 'EntityEvent',
  key: 'EntityEventSequence',
  from: 'change_log',
  visible: `seq IS NOT NULL AND (public_before OR public_after) AND resource IN (${EVENT_RESOURCES.map((r) => `'${r}'`).join(', ')})
    AND seq >= (SELECT complete_from FROM change_log_head)`,
  keySql: 'seq',
  fields: [
    { name: 'EntityEventSequence', type: { edm: 'Edm.Int64' }, sql: 'seq', notNull: true },
    { ...str('ResourceName', 'resource'), notNull: true },
    { ...str('ResourceRecordKey', 'record_key'), notNull: true },
    str('ResourceRecordUrl', `resource || ' ' || record_key`, 8000),
  ],
};

/** When the service began listing the Data Dictionary's values: the ModificationTimestamp of their Lookup records. */
export const STANDARD_LOOKUPS_SINCE = '2026-11-28T00:00:00Z';

/** Every lookup field of the listings whose values are the feed's text, by LookupName (lib/reso-lookups.ts). */
const dataLookupSql = (lookup: (typeof DATA_LOOKUPS)[number]): string => {
  const field = PROPERTY_FIELDS.find((f) => f.type.edm === 'Edm.String' && f.type.lookup === lookup);
  if (!field) throw new Error(`no Property field has the lookup ${lookup}`);
  return field.sql;
};

const ddRows = (names: readonly string[]) =>
  names.flatMap((name) =>
    (DD_LOOKUP_VALUES as Record<string, readonly (readonly [string, string])[]>)[name].map(
      ([standard, legacy]) => `(${sqlText(name)}, ${sqlText(standard)}, ${sqlText(legacy)})`,
    ),
  );

/**
 * RESO Lookup (Data Dictionary 2.0, section 2.2): the values of every lookup field served. The
 * lookups the service maps list every value the Data Dictionary defines (ModificationTimestamp:
 * STANDARD_LOOKUPS_SINCE); the others list the values the public listings hold, each with the
 * latest ModificationTimestamp of a listing holding it (so replication by ModificationTimestamp
 * brings a new City as soon as a listing brings it), and the Data Dictionary's value where it is
 * one. LookupKey is `LookupName:LookupValue`. Each lookup is its own pass over the listings, so a
 * read filtered by LookupName (the usual one) makes only that pass: the other branches' constant
 * names fail the filter and the planner drops them.
 */
const LOOKUP_FROM = `(SELECT lookup_name || ':' || lookup_value AS lookup_key, lookup_name, lookup_value, standard_value, legacy_value, modified_at FROM (
    SELECT s.lookup_name, s.standard_value AS lookup_value, s.standard_value, s.legacy_value, TIMESTAMPTZ '${STANDARD_LOOKUPS_SINCE}' AS modified_at
      FROM (VALUES ${ddRows(MAPPED_LOOKUPS).join(', ')}) AS s(lookup_name, standard_value, legacy_value)
    UNION ALL
    SELECT d.lookup_name, d.lookup_value, s.standard_value, s.legacy_value, d.modified_at FROM (
      ${DATA_LOOKUPS.map(
        (name) => `SELECT ${sqlText(name)}::text AS lookup_name, (${dataLookupSql(name)}) AS lookup_value, max(updated_at) AS modified_at
          FROM listings WHERE ${visibleListing()} AND (${dataLookupSql(name)}) <> '' GROUP BY 2`,
      ).join(' UNION ALL ')}) d
    LEFT JOIN (VALUES ${ddRows(DATA_LOOKUPS.filter((name) => name in DD_LOOKUP_VALUES)).join(', ')}) AS s(lookup_name, standard_value, legacy_value)
      ON s.lookup_name = d.lookup_name AND s.standard_value = d.lookup_value
  ) lookups) lookup`;

const LOOKUP: ResoResource = {
  name: 'Lookup',
  key: 'LookupKey',
  from: LOOKUP_FROM,
  visible: 'true',
  keySql: 'lookup_key',
  fields: [
    { ...str('LookupKey', 'lookup_key'), notNull: true },
    { ...str('LookupName', 'lookup_name'), notNull: true },
    { ...str('LookupValue', 'lookup_value'), notNull: true },
    str('StandardLookupValue', 'standard_value'),
    str('LegacyODataValue', 'legacy_value'),
    { name: 'ModificationTimestamp', type: { edm: 'Edm.DateTimeOffset' }, sql: 'modified_at', notNull: true },
  ],
};

export const RESOURCES: Record<ResoResource['name'], ResoResource> = {
  Property: { name: 'Property', key: 'ListingKey', from: 'listings', visible: visibleListing(), keySql: 'listing_key', fields: PROPERTY_FIELDS },
  Member: {
    name: 'Member',
    key: 'MemberKey',
    from: 'directory_agents',
    visible: 'true',
    keySql: 'agent_id',
    fields: [
      str('MemberKey', 'agent_id'),
      str('MemberFullName', 'name', 150),
      str('MemberEmail', 'email', 80),
      str('MemberMobilePhone', `jsonb_path_query_first(phones, '$[*] \\? (@.type == "mobile").number') #>> '{}'`, 16),
      str('MemberDirectPhone', `jsonb_path_query_first(phones, '$[*] \\? (@.type != "mobile").number') #>> '{}'`, 16),
      str('OfficeKey', 'office'),
      { name: 'ModificationTimestamp', type: { edm: 'Edm.DateTimeOffset' }, sql: 'updated_at', notNull: true },
    ],
  },
  Office: {
    name: 'Office',
    key: 'OfficeKey',
    from: 'directory_offices',
    visible: 'true',
    keySql: 'office',
    fields: [
      str('OfficeKey', 'office'),
      str('OfficeName', 'name'),
      str('OfficePhone', 'phone', 16),
      { name: 'ModificationTimestamp', type: { edm: 'Edm.DateTimeOffset' }, sql: 'updated_at', notNull: true },
    ],
  },
  Media: {
    name: 'Media',
    key: 'MediaKey',
    from: `listings l CROSS JOIN LATERAL jsonb_array_elements(coalesce(l.data->'media', '[]'::jsonb)) AS m(item)`,
    visible: `${visibleListing('l.')} AND m.item->>'url' IS NOT NULL`,
    keySql: `l.listing_key || '/' || (m.item->>'kind') || '/' || (m.item->>'slot')`,
    rowKeySql: 'l.listing_key',
    fields: [
      str('MediaKey', `l.listing_key || '/' || (m.item->>'kind') || '/' || (m.item->>'slot')`),
      lookupField('ResourceName', 'ResourceName', `${dd('ResourceName', 'Property')}::text`, 50),
      str('ResourceRecordKey', 'l.listing_key'),
      str('MediaURL', `m.item->>'url'`, 8000),
      lookupField('MediaCategory', 'MediaCategory', MEDIA_KINDS, 50),
      int('Order', `(m.item->>'order')::int`),
      bool('PreferredPhotoYN', `m.item->'hero'`),
      str('ShortDescription', `m.item->>'title'`, 50),
      // A listing's media change with it: its ModificationTimestamp is theirs.
      { name: 'ModificationTimestamp', type: { edm: 'Edm.DateTimeOffset' }, sql: 'l.updated_at', notNull: true },
    ],
  },
  OpenHouse: {
    name: 'OpenHouse',
    key: 'OpenHouseKey',
    from: 'listing_events e JOIN listings l ON l.listing_key = e.listing_key',
    // Open homes not yet ended of a listing a public read may show (docs/reads.md, Open homes and auctions).
    visible: `${visibleListing('l.')} AND e.kind = 'open_home' AND e.ends_at > now()`,
    keySql: OPEN_HOUSE_KEY,
    rowKeySql: 'e.listing_key',
    fields: [
      { ...str('OpenHouseKey', OPEN_HOUSE_KEY), notNull: true },
      { ...str('ListingKey', 'e.listing_key'), notNull: true },
      str('ListingId', 'l.unique_id'),
      // The day in the listing's own zone.
      { name: 'OpenHouseDate', type: { edm: 'Edm.Date' }, sql: `to_char(e.starts_at AT TIME ZONE e.zone, 'YYYY-MM-DD')` },
      { name: 'OpenHouseStartTime', type: { edm: 'Edm.DateTimeOffset' }, sql: 'e.starts_at', notNull: true },
      { name: 'OpenHouseEndTime', type: { edm: 'Edm.DateTimeOffset' }, sql: 'e.ends_at', notNull: true },
      // Only open houses to come are served: each is Active (the Data Dictionary's OpenHouseStatus lookup).
      lookupField('OpenHouseStatus', 'OpenHouseStatus', `${dd('OpenHouseStatus', 'Active')}::text`, 25),
      // An open house changes with its listing: its ModificationTimestamp is theirs.
      { name: 'ModificationTimestamp', type: { edm: 'Edm.DateTimeOffset' }, sql: 'l.updated_at', notNull: true },
    ],
  },
  EntityEvent: ENTITY_EVENT,
  Lookup: LOOKUP,
};

/** The navigation properties of Property: what `$expand` takes. */
export const PROPERTY_EXPANDS = ['Media', 'ListAgent', 'ListOffice', 'OpenHouse'] as const;
export type PropertyExpand = (typeof PROPERTY_EXPANDS)[number];

export const fieldOf = (resource: ResoResource, name: string): ResoField | undefined => resource.fields.find((f) => f.name === name);
