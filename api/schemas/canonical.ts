/**
 * JSON Schemas of the canonical records as the service stores and returns them (pipeline/types.ts
 * CanonicalListing, CanonicalProject), and of the directory's agents and offices. The public reads,
 * the dry run and the API description use them; tests validate every fixture's preview and every
 * read against them, so they say what the records really hold.
 */

const nullable = <T extends object>(schema: T) => ({ oneOf: [{ type: 'null' }, schema] }) as const;
const localeText = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'Text by locale (BCP 47), e.g. { "en-AU": "Sunny cottage" }.',
} as const;
const isoDateTime = { type: 'string', description: 'ISO 8601 date-time (UTC, or with its offset).' } as const;
const currency = { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO-4217 code.' } as const;

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

export const projectSchema = {
  $id: 'Project',
  type: 'object',
  description: 'A new-home development as stored and returned; its listings are canonical listings with its projectKey.',
  additionalProperties: false,
  required: [
    'projectKey',
    'office',
    'uniqueId',
    'format',
    'status',
    'modTime',
    'name',
    'developer',
    'stage',
    'priceRange',
    'completionDate',
    'address',
    'location',
    'headline',
    'description',
    'media',
    'listingKeys',
    'contentHash',
  ],
  properties: {
    projectKey: { type: 'string' },
    office: { type: 'string' },
    uniqueId: { type: 'string' },
    format: { const: 'project' },
    status: { enum: ['active', 'archived'] },
    modTime: isoDateTime,
    name: { type: 'string' },
    developer: nullable({
      type: 'object',
      additionalProperties: false,
      required: ['name', 'websiteUrl', 'logoUrl'],
      properties: { name: { type: 'string' }, websiteUrl: { type: ['string', 'null'] }, logoUrl: { type: ['string', 'null'] } },
    }),
    stage: { enum: ['off_the_plan', 'under_construction', 'completed'] },
    priceRange: nullable({
      type: 'object',
      additionalProperties: false,
      required: ['from', 'to', 'currency', 'derived'],
      properties: {
        from: { type: ['number', 'null'] },
        to: { type: ['number', 'null'] },
        currency,
        derived: { type: 'boolean', description: "From its listings' prices, not the document." },
      },
    }),
    completionDate: { type: ['string', 'null'], description: 'YYYY, YYYY-MM or YYYY-MM-DD.' },
    address: { $ref: 'Address' },
    location: nullable({ $ref: 'Location' }),
    headline: nullable(localeText),
    description: nullable(localeText),
    media: { type: 'array', items: { $ref: 'MediaItem' } },
    listingKeys: { type: 'array', items: { type: 'string' }, description: 'Its listings, in document order.' },
    contentHash: { type: 'string' },
  },
} as const;

const stringArray = { type: 'array', items: { type: 'string' } } as const;

export const agentSchema = {
  $id: 'Agent',
  type: 'object',
  description: 'A directory agent: an agent of public listings, per office.',
  additionalProperties: false,
  required: ['office', 'name', 'email', 'phones', 'listingCount', 'countries', 'localities'],
  properties: {
    office: { type: 'string' },
    name: { type: ['string', 'null'] },
    email: { type: ['string', 'null'] },
    phones: { type: 'array', items: { type: 'object', required: ['type', 'number'], properties: { type: { type: 'string' }, number: { type: 'string' } } } },
    listingCount: { type: 'integer', description: 'Public listings with this agent.' },
    countries: stringArray,
    localities: stringArray,
  },
} as const;

export const officeSchema = {
  $id: 'Office',
  type: 'object',
  description: 'A directory office: an office with public listings.',
  additionalProperties: false,
  required: ['office', 'listingCount', 'countries', 'localities', 'location'],
  properties: {
    office: { type: 'string' },
    listingCount: { type: 'integer' },
    countries: stringArray,
    localities: stringArray,
    location: {
      oneOf: [
        { type: 'null' },
        { type: 'object', additionalProperties: false, required: ['lat', 'lng'], properties: { lat: { type: 'number' }, lng: { type: 'number' } } },
      ],
      description: "Centroid of the office's located public listings.",
    },
  },
} as const;

export const canonicalSchemas = [
  priceSchema,
  rentSchema,
  addressSchema,
  locationSchema,
  mediaItemSchema,
  listingAgentSchema,
  listingSchema,
  projectSchema,
  agentSchema,
  officeSchema,
];
