import { HISTORY_EVENT_TYPES } from '../../db/listing-history.js';
import { publicProjectSchema } from './canonical.js';
import { objectSchema, requiredObject } from './object-schema.js';
/** Query schemas and answers of the public reads (docs/reads.md; docs/architecture.md, The canonical listing and Reads). */

import { limitParam as limit, offsetParam as offset } from './paging.js';

const MIB = '4 MiB';
/** The total of a page whose count is cached (listings, agents, offices): exact, or null when it could not be counted. */
const countedTotal = (what: string) =>
  ({
    type: ['integer', 'null'],
    minimum: 0,
    description: `${what}, counted exactly at most every 30 s per filter set (so it may lag writes by about that long). null when the count did not finish within DB_READ_TIMEOUT_MS (or failed): the total is then unknown, not zero; the page itself is complete, so page on with nextOffset or next. A count that did not finish is tried again within 30 s.`,
  }) as const;

/** Every page answer's last member. */
const nextOffset = {
  type: ['integer', 'null'],
  minimum: 0,
  description: `Where the next page starts (pass it as offset), or null when this page is the last. A page holds at most limit records and at most PUBLIC_PAGE_MAX_BYTES bytes of them (${MIB} by default): it stops before the record that would pass that budget (the first record is always shown), so page on with nextOffset rather than offset + limit.`,
} as const;

const country = { type: 'string', pattern: '^[A-Za-z]{2}$', description: 'ISO-3166 alpha-2 (exactly two letters; any case).' } as const;
const office = { type: 'string', minLength: 1, maxLength: 200, description: 'Source office id, exact.' } as const;

const list = (description: string, example: string) =>
  ({ type: 'string', minLength: 1, maxLength: 500, description: `${description} Several values: separated by commas (any one matches).`, example }) as const;
const isoTime = (description: string, example: string) =>
  ({
    type: 'string',
    pattern: '^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?)?$',
    description: `${description} ISO 8601: a date (2024-03-01) or a date and time (2024-03-01T10:00:00Z; without a zone, UTC).`,
    example,
  }) as const;
const count = (description: string) => ({ type: 'number', minimum: 0, description }) as const;

export const listingSearchQuerySchema = {
  $id: 'ListingSearchQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    country,
    office,
    category: list('Category, in any case: residential, rental, land, rural, commercial, commercialLand, business, holidayRental.', 'residential'),
    subCategory: list('Property type as the feed names it, in any case (House, Unit, Apartment, Townhouse, Land, ...).', 'House,Townhouse'),
    locality: list('Suburb or town, in any case.', 'Richmond,Hawthorn'),
    region: list('State or region as feeds give it (VIC, NSW, ...), in any case.', 'VIC'),
    postcode: list('Postcode (spaces and case ignored).', '3121'),
    saleMode: { enum: ['sale', 'rent', 'both'], default: 'both', description: 'both (default) returns sale and rent listings.' },
    status: list(
      'active, underOffer, sold or leased. Default: active and underOffer (on the market). Sold and leased listings are searched with this (and soldSince).',
      'sold',
    ),
    soldSince: isoTime('Sold on or after this date (by the sold date the feed gives); implies status=sold unless status is given.', '2024-01-01'),
    updatedSince: isoTime('Changed by the service on or after this time (any change a public read shows).', '2024-03-01T00:00:00Z'),
    listedSince: isoTime('Listed on or after this time: the listing date the feed gives, else when the service first stored it.', '2024-03-01'),
    openFrom: isoTime(
      "Open for inspection on or after this: a date is that whole day in each listing's own time zone (openFrom=2026-12-12&openTo=2026-12-12 is every listing with an open home that Saturday, wherever it is); a date and time is that instant. Matches listings with an open home not yet ended that overlaps the window from openFrom to openTo.",
      '2026-12-12',
    ),
    openTo: isoTime(
      "Open for inspection on or before this: a date is up to the end of that day in the listing's zone, a date and time that instant (see openFrom). Either alone is an open-ended window.",
      '2026-12-12',
    ),
    minPrice: {
      type: 'number',
      minimum: 0,
      description:
        'The public price only: a price the agent withholds matches no price bound. Sale listings: the sale price (sold listings: the sold price). Rent listings: the weekly rent (monthly rents are compared as x 12 / 52, yearly as / 52). With saleMode=both each listing is compared by its own amount.',
    },
    maxPrice: { type: 'number', minimum: 0, description: 'As minPrice.' },
    minBedrooms: count('At least this many bedrooms.'),
    maxBedrooms: count('At most this many bedrooms.'),
    minBathrooms: count('At least this many bathrooms.'),
    minCarSpaces: count('At least this many car spaces (garages, carports and open spaces added up).'),
    minLandArea: count('Land area at least this many m².'),
    maxLandArea: count('Land area at most this many m².'),
    q: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description:
        'Keywords, as a web search engine reads them ("quoted phrase", or, -excluded), over the headline, description, public address and agent names, stemmed in the language of the listing\'s text. sort=relevance ranks by them. At most 200 characters, 16 words (letters and digits; each part of a hyphenated word counts, and so does or) and 4 exclusions (a - starting a word; a - inside quotes or inside a word is none); more is a 400 naming the limit.',
      example: 'pool garden',
    },
    bbox: {
      type: 'string',
      maxLength: 100,
      description:
        'Map area: minLng,minLat,maxLng,maxLat in degrees (WGS 84). minLng greater than maxLng crosses the antimeridian. Listings are placed where the public sees them (a withheld street at its locality).',
      example: '144.9,-37.9,145.1,-37.7',
    },
    near: {
      type: 'string',
      maxLength: 60,
      description: 'A point lat,lng in degrees: listings within radiusKm of it; enables sort=distance.',
      example: '-37.82,145.0',
    },
    radiusKm: { type: 'number', exclusiveMinimum: 0, maximum: 500, default: 10, description: 'With near: the radius in kilometres (default 10, at most 500).' },
    agent: {
      type: 'string',
      pattern: '^[0-9a-f]{16}$',
      description: "An agent's id (from /v1/agents or a listing's primaryAgent): that agent's listings.",
      example: '0123456789abcdef',
    },
    sort: {
      enum: [
        'newest',
        'updated',
        'price',
        'bedrooms',
        'landArea',
        'distance',
        'relevance',
        'nextOpenHome',
        '-newest',
        '-updated',
        '-price',
        '-bedrooms',
        '-landArea',
        '-distance',
        '-relevance',
        '-nextOpenHome',
      ],
      default: 'newest',
      description:
        "newest (default: modTime, latest first), updated (latest change first), price, bedrooms, landArea and distance (with near) smallest first, relevance (with q) best first among its candidates (its SEARCH_RELEVANCE_CANDIDATES, 500, newest matches in the headline, address or agents' names and as many newest matches anywhere; its pages end after them, and sort=newest reaches every match), nextOpenHome by the start of the listing's next open home not yet ended, soonest first; a leading - reverses. Listings without an open home to come sort last either way. Listings without a public price (or bedrooms, land area) sort last either way; ties are broken by listingKey, ascending, and descending when the sort is reversed. A price sort is fastest with saleMode sale or rent.",
    },
    facets: {
      type: 'string',
      maxLength: 100,
      description:
        'Counts over all matches, by value, for each named facet: category, subCategory, bedrooms, locality, priceBand, status (comma separated). Counted at most every 30 s per filter set.',
      example: 'category,bedrooms,priceBand',
    },
    cursor: {
      type: 'string',
      minLength: 1,
      maxLength: 1000,
      description: 'The next value of the previous page: the page after it, with the same filters and sort (not with offset).',
    },
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

export const listingPageSchema = objectSchema(
  'ListingPage',
  {
    total: {
      ...countedTotal('All matches'),
      description: `${countedTotal('All matches').description} Counted exactly up to SEARCH_EXACT_TOTAL_MAX (10,000) matches; past that the count stops and total is that bound, with totalIsLowerBound true.`,
    },
    totalIsLowerBound: {
      type: 'boolean',
      description:
        'true: more listings match than total says (the count stopped at SEARCH_EXACT_TOTAL_MAX, as Elasticsearch’s track_total_hits does), so show it as “10,000+”; page on with nextOffset or next to reach them all (sort=relevance pages through its ranked candidates only). false: total is exact (or null, unknown).',
    },
    listings: {
      type: 'array',
      items: { $ref: 'PublicListing' },
      description: 'In the order sort asks for (default: newest modTime first), ties by listingKey.',
    },
    nextOffset: { ...nextOffset, description: `${nextOffset.description} Null after a cursor: page on with next.` },
    next: {
      type: ['string', 'null'],
      description:
        'An opaque cursor for the page after this one (send it back as cursor, with the same filters and sort); null on the last page. Also in the Link header (rel="next") as a whole URL: from the configured public address of the service, else from the scheme and Host header of the request (relative when it has no Host header). Unlike offsets, cursors neither repeat nor skip records when listings are written between pages.',
    },
    facets: {
      type: ['object', 'null'],
      description:
        'With facets=: for each facet asked for, the count of matches by value (most common first; at most 100 values; "none" for matches without one). priceBand values are sale:<from>-<to> and rent:<from>-<to> (weekly), or none for no public price. Counted like total: null when the counts did not finish (unknown, not empty).',
      additionalProperties: { type: 'object', additionalProperties: { type: 'integer' } },
    },
  },
  { required: ['total', 'totalIsLowerBound', 'listings', 'nextOffset', 'next'] },
);

export const agentPageSchema = objectSchema('AgentPage', {
  total: countedTotal('All matching agents'),
  agents: { type: 'array', items: { $ref: 'Agent' } },
  nextOffset,
});

export const officePageSchema = objectSchema('OfficePage', {
  total: countedTotal('All matching offices'),
  offices: { type: 'array', items: { $ref: 'Office' } },
  nextOffset,
});

const historyAmount = {
  type: 'object',
  required: ['amount'],
  properties: {
    amount: { type: 'number' },
    currency: { type: 'string', description: 'ISO-4217 code.' },
    period: { type: 'string', enum: ['week', 'month', 'year'], description: "A rent's period." },
  },
} as const;

export const listingHistoryQuerySchema = {
  $id: 'ListingHistoryQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: limit(200, 50),
    cursor: { type: 'string', pattern: '^[0-9]{1,19}$', description: "The previous page's next: older events." },
  },
} as const;

export const listingHistorySchema = objectSchema('ListingHistory', {
  events: {
    type: 'array',
    description:
      "Newest first. Amounts are those the public saw when they applied: a price the agent withheld then is never shown, and while the agent withholds the listing's price now no asking amount is shown at all (nor a sold price withheld now).",
    items: {
      type: 'object',
      required: ['type', 'at'],
      properties: {
        type: {
          type: 'string',
          enum: [...HISTORY_EVENT_TYPES],
          description:
            'listed: first shown to the public; price_changed: the asking price (or rent) changed; under_offer, sold, leased: its status became that; withdrawn: it left the market (withdrawn or taken off it); back_on_market: on the market again.',
        },
        at: { type: 'string', format: 'date-time', description: 'When the change was stored here.' },
        price: { ...historyAmount, description: 'listed, price_changed: the asking price (or rent) from then on.' },
        previousPrice: { ...historyAmount, description: 'price_changed: the asking price before.' },
        soldPrice: { ...historyAmount, description: 'sold, leased: the price, where its display allows.' },
      },
    },
  },
  next: { type: ['string', 'null'], description: 'Pass as cursor for older events; null when there are none.' },
});

export const countriesSchema = objectSchema('Countries', {
  countries: {
    type: 'array',
    items: requiredObject({ code: { type: 'string' }, listingCount: { type: 'integer' } }),
    description: 'Public listings per country, most first.',
  },
});

export const fxRatesSchema = objectSchema(
  'FxRates',
  {
    base: { type: 'string', description: 'ISO-4217 code the rates are quoted against (EUR for ECB rates).' },
    asOf: { type: 'string', description: 'The date the rates are for (YYYY-MM-DD).' },
    source: { type: 'string', description: 'primary, backup, or the bundled snapshot.' },
    rates: { type: 'object', additionalProperties: { type: 'number' }, description: 'Units of each currency per unit of base.' },
  },
  { required: ['base', 'asOf', 'rates'] },
);

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

export const projectPageSchema = objectSchema('ProjectPage', {
  total: { type: 'integer', description: 'All matching projects (not archived).' },
  projects: {
    type: 'array',
    items: { $ref: 'PublicProject' },
    description: 'Newest modTime first, then projectKey.',
  },
  nextOffset,
});

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
