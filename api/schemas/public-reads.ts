import { publicProjectSchema } from './canonical.js';
/** Query schemas and answers of the public reads (docs/reads.md; docs/architecture.md, The canonical listing and Reads). */

import { limitParam as limit, offsetParam as offset } from './paging.js';

const MIB = '4 MiB';
/** Every page answer's last member. */
const nextOffset = {
  type: ['integer', 'null'],
  minimum: 0,
  description: `Where the next page starts (pass it as offset), or null when this page is the last. A page holds at most limit records and at most PUBLIC_PAGE_MAX_BYTES bytes of them (${MIB} by default): it stops before the record that would pass that budget (the first record is always shown), so page on with nextOffset rather than offset + limit.`,
} as const;

const country = { type: 'string', pattern: '^[A-Za-z]{2}$', description: 'ISO-3166 alpha-2 (exactly two letters; any case).' } as const;
const office = { type: 'string', minLength: 1, maxLength: 200, description: 'Source office id, exact.' } as const;

export const listingSearchQuerySchema = {
  $id: 'ListingSearchQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    country,
    office,
    category: {
      type: 'string',
      minLength: 1,
      maxLength: 40,
      description: 'residential, rental, land, rural, commercial, commercialLand, business, holidayRental.',
    },
    saleMode: { enum: ['sale', 'rent', 'both'], default: 'both', description: 'both (default) returns sale and rent listings.' },
    minPrice: {
      type: 'number',
      minimum: 0,
      description:
        'Sale listings: the sale price. Rent listings: the weekly rent (monthly rents are compared as x 12 / 52). With saleMode=both each listing is compared by its own amount.',
    },
    maxPrice: { type: 'number', minimum: 0 },
    minBedrooms: { type: 'number', minimum: 0 },
    limit: limit(100, 24),
    offset,
  },
} as const;

export const directoryQuerySchema = {
  $id: 'DirectoryQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    country,
    office,
    query: { type: 'string', minLength: 1, maxLength: 120, description: 'Matches names (office id for offices) and localities, case-insensitively.' },
    limit: limit(200, 60),
    offset,
  },
} as const;

export const listingPageSchema = {
  $id: 'ListingPage',
  type: 'object',
  required: ['total', 'listings', 'nextOffset'],
  properties: {
    total: { type: 'integer', description: 'All public matches (counted at most every 30 s per filter set).' },
    listings: { type: 'array', items: { $ref: 'PublicListing' }, description: 'Newest modTime first, then listingKey.' },
    nextOffset,
  },
} as const;

export const agentPageSchema = {
  $id: 'AgentPage',
  type: 'object',
  required: ['total', 'agents', 'nextOffset'],
  properties: {
    total: { type: 'integer' },
    agents: { type: 'array', items: { $ref: 'Agent' } },
    nextOffset,
  },
} as const;

export const officePageSchema = {
  $id: 'OfficePage',
  type: 'object',
  required: ['total', 'offices', 'nextOffset'],
  properties: {
    total: { type: 'integer' },
    offices: { type: 'array', items: { $ref: 'Office' } },
    nextOffset,
  },
} as const;

export const countriesSchema = {
  $id: 'Countries',
  type: 'object',
  required: ['countries'],
  properties: {
    countries: {
      type: 'array',
      items: { type: 'object', required: ['code', 'listingCount'], properties: { code: { type: 'string' }, listingCount: { type: 'integer' } } },
      description: 'Public listings per country, most first.',
    },
  },
} as const;

export const fxRatesSchema = {
  $id: 'FxRates',
  type: 'object',
  required: ['base', 'asOf', 'rates'],
  properties: {
    base: { type: 'string', description: 'ISO-4217 code the rates are quoted against (EUR for ECB rates).' },
    asOf: { type: 'string', description: 'The date the rates are for (YYYY-MM-DD).' },
    source: { type: 'string', description: 'primary, backup, or the bundled snapshot.' },
    rates: { type: 'object', additionalProperties: { type: 'number' }, description: 'Units of each currency per unit of base.' },
  },
} as const;

export const projectSearchQuerySchema = {
  $id: 'ProjectSearchQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    stage: { enum: ['off_the_plan', 'under_construction', 'completed'] },
    country,
    office,
    limit: limit(100, 24),
    offset,
  },
} as const;

export const projectPageSchema = {
  $id: 'ProjectPage',
  type: 'object',
  required: ['total', 'projects', 'nextOffset'],
  properties: {
    total: { type: 'integer', description: 'All matching projects (not archived).' },
    projects: {
      type: 'array',
      items: { $ref: 'PublicProject' },
      description: 'Newest modTime first, then projectKey.',
    },
    nextOffset,
  },
} as const;

/** The canonical project with its public listings in document order. */
export const projectWithListingsSchema = {
  ...publicProjectSchema,
  $id: 'ProjectWithListings',
  description: 'The canonical project with its public listings in document order.',
  required: [...publicProjectSchema.required, 'listings', 'listingsOmitted'],
  properties: {
    ...publicProjectSchema.properties,
    listings: {
      type: 'array',
      items: { $ref: 'PublicListing' },
      description: `Its public listings, each with its projectKey. They stop before the listing that would take them past the page byte budget (PUBLIC_PAGE_MAX_BYTES, ${MIB} by default); the first is always shown.`,
    },
    listingsOmitted: { type: 'integer', minimum: 0, description: 'Public listings of the project left out by the byte budget (0 almost always).' },
  },
} as const;
