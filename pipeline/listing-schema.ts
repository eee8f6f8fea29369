/**
 * JSON Schemas of the canonical listing as the service stores and returns it (pipeline/types.ts
 * CanonicalListing) and of what it holds. The API serves them (api/schemas); the content hash takes
 * its key orders from them (hash.ts), so there is one list of a listing's fields.
 */

export const nullable = <T extends object>(schema: T) => ({ oneOf: [{ type: 'null' }, schema] }) as const;
export const localeText = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'Text by locale (BCP 47), e.g. { "en-AU": "Sunny cottage" }.',
} as const;
export const isoDateTime = { type: 'string', description: 'ISO 8601 date-time (UTC, or with its offset).' } as const;
export const currency = { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO-4217 code.' } as const;

export const priceSchema = {
  $id: 'Price',
  type: 'object',
  additionalProperties: false,
  required: ['amount', 'currency', 'display'],
  properties: {
    amount: { type: ['number', 'null'], description: 'null: no amount (price on application).' },
    currency,
    display: { type: 'boolean', description: 'false: show text (or nothing) instead of the amount.' },
    text: { type: ['string', 'null'], description: 'The price view shown instead of, or beside, the amount.' },
  },
} as const;

export const rentSchema = {
  $id: 'Rent',
  type: 'object',
  additionalProperties: false,
  required: ['amount', 'currency', 'period', 'display'],
  properties: {
    amount: { type: ['number', 'null'] },
    currency,
    period: { enum: ['week', 'month', 'year'] },
    display: { type: 'boolean' },
    text: { type: ['string', 'null'] },
  },
} as const;

export const addressSchema = {
  $id: 'Address',
  type: 'object',
  additionalProperties: false,
  required: ['country', 'region', 'locality', 'postcode', 'street', 'streetNumber', 'subNumber', 'display'],
  properties: {
    country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO-3166 alpha-2.' },
    region: { type: ['string', 'null'], description: 'State or region (AU states as their abbreviation).' },
    locality: { type: ['string', 'null'] },
    postcode: { type: ['string', 'null'] },
    street: { type: ['string', 'null'] },
    streetNumber: { type: ['string', 'null'] },
    subNumber: { type: ['string', 'null'] },
    lotNumber: { type: 'string', description: 'Land lots ("5" of "Lot 5 Sample Road"); present only when the feed gives one.' },
    display: { type: 'boolean', description: 'false: show suburb and state, not the street.' },
  },
} as const;

export const locationSchema = {
  $id: 'Location',
  type: 'object',
  additionalProperties: false,
  required: ['lat', 'lng', 'precision', 'source'],
  properties: {
    lat: { type: 'number', minimum: -90, maximum: 90 },
    lng: { type: 'number', minimum: -180, maximum: 180 },
    precision: { enum: ['source', 'street', 'locality', 'postcode'], description: "source: the feed's own coordinates; otherwise an offline gazetteer's." },
    source: { type: 'string', description: 'feed, or the gazetteer used.' },
  },
} as const;

export const mediaItemSchema = {
  $id: 'MediaItem',
  type: 'object',
  additionalProperties: false,
  required: ['url', 'kind', 'order', 'hero', 'slot'],
  properties: {
    url: { type: 'string', format: 'uri' },
    kind: { enum: ['photo', 'floorplan', 'document'] },
    order: { type: 'integer', minimum: 0, description: 'Photos (hero first), then floor plans, then documents.' },
    hero: { type: 'boolean' },
    slot: { type: 'string', description: 'The source slot (REAXML img id m, a..z; floorplan/document ids).' },
    title: { type: 'string' },
  },
} as const;

export const listingAgentSchema = {
  $id: 'ListingAgent',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'email', 'phones', 'sourceAgentId', 'slot'],
  properties: {
    name: { type: ['string', 'null'] },
    email: { type: ['string', 'null'] },
    phones: { type: 'array', items: { type: 'object', required: ['type', 'number'], properties: { type: { type: 'string' }, number: { type: 'string' } } } },
    sourceAgentId: { type: ['string', 'null'] },
    slot: { type: 'string', description: 'REAXML listingAgent id (1..4).' },
  },
} as const;

export const listingSchema = {
  $id: 'Listing',
  type: 'object',
  description: 'A canonical listing as stored and returned.',
  required: [
    'listingKey',
    'office',
    'uniqueId',
    'format',
    'category',
    'subCategory',
    'saleMode',
    'status',
    'modTime',
    'price',
    'rent',
    'sold',
    'bond',
    'bedrooms',
    'bathrooms',
    'features',
    'landAreaSqm',
    'buildingAreaSqm',
    'address',
    'location',
    'media',
    'agents',
    'headline',
    'description',
    'auction',
    'dateAvailable',
    'inspections',
    'links',
    'hidden',
    'projectKey',
    'contentHash',
  ],
  additionalProperties: false,
  properties: {
    listingKey: { type: 'string', description: 'office/uniqueId, each percent-encoded.' },
    office: { type: 'string' },
    uniqueId: { type: 'string' },
    format: { enum: ['reaxml', 'reso', 'project'] },
    category: { enum: ['residential', 'rental', 'land', 'rural', 'commercial', 'commercialLand', 'business', 'holidayRental'] },
    subCategory: { type: ['string', 'null'] },
    saleMode: { enum: ['sale', 'rent'] },
    bothPrices: { const: true, description: 'Commercial for sale and lease: the lease rent is in rent.' },
    status: { enum: ['active', 'under_offer', 'sold', 'leased', 'withdrawn', 'off_market', 'archived'] },
    modTime: isoDateTime,
    price: nullable({ $ref: 'Price' }),
    rent: nullable({ $ref: 'Rent' }),
    sold: nullable({
      type: 'object',
      additionalProperties: false,
      required: ['price', 'date'],
      properties: { price: nullable({ $ref: 'Price' }), date: { type: ['string', 'null'] } },
    }),
    bond: { type: ['number', 'null'] },
    bedrooms: { type: ['number', 'null'] },
    bathrooms: { type: ['number', 'null'] },
    features: {
      type: 'object',
      additionalProperties: { anyOf: [{ type: 'number' }, { type: 'boolean' }, { type: 'string' }, { type: 'null' }] },
      description: 'Feature counts and flags (garages, pool, …).',
    },
    landAreaSqm: { type: ['number', 'null'] },
    buildingAreaSqm: { type: ['number', 'null'] },
    address: nullable({ $ref: 'Address' }),
    location: nullable({ $ref: 'Location' }),
    media: { type: 'array', items: { $ref: 'MediaItem' } },
    agents: { type: 'array', items: { $ref: 'ListingAgent' } },
    headline: nullable(localeText),
    description: nullable(localeText),
    auction: nullable({ type: 'object', additionalProperties: false, required: ['date'], properties: { date: { type: ['string', 'null'] } } }),
    dateAvailable: { type: ['string', 'null'], description: 'YYYY-MM-DD.' },
    inspections: { type: 'array', items: { type: 'string' }, description: '"DD-Mon-YYYY hh:mmam to hh:mmpm".' },
    links: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'url'],
        properties: { kind: { enum: ['externalLink', 'videoLink'] }, url: { type: 'string' } },
      },
    },
    hidden: { type: 'boolean', description: 'Hidden by an operator (never set by ingestion).' },
    projectKey: { type: ['string', 'null'], description: 'The project a new-home listing belongs to.' },
    contentHash: { type: 'string', description: 'Hash of the content (modTime and bookkeeping excluded).' },
  },
} as const;
