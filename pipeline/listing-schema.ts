/**
 * JSON Schemas of the canonical listing as the service stores and returns it (pipeline/types.ts
 * CanonicalListing) and of what it holds. The API serves them (api/schemas); the content hash takes
 * its key orders from them (hash.ts), so there is one list of a listing's fields.
 */

import { legacyODataValues } from '../lib/reso-lookups.js';
import { LISTING_STATUSES } from './listing-statuses.js';

export const nullable = <const T extends object>(schema: T) => ({ oneOf: [{ type: 'null' }, schema] }) as const;
export const localeText = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'Text by locale (BCP 47), e.g. { "en-AU": "Sunny cottage" }.',
} as const;
export const isoDateTime = { type: 'string', description: 'ISO 8601 date-time (UTC, or with its offset).' } as const;
export const currency = { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO-4217 code.' } as const;

const rangeSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['min', 'max'],
  properties: { min: { type: ['number', 'null'] }, max: { type: ['number', 'null'] } },
  description: 'A lower and upper bound (either may be null).',
} as const;
const taxSchema = { enum: ['unknown', 'exempt', 'inclusive', 'exclusive'], description: 'GST as the feed states it.' } as const;
const amountExtras = {
  range: { ...rangeSchema, description: "The feed's price range; amount is its lower bound." },
  displayRange: { const: true, description: 'The agent shows the range, not the exact amount: public answers carry the range and no amount.' },
  tax: taxSchema,
} as const;

export const priceSchema = {
  $id: 'Price',
  type: 'object',
  additionalProperties: false,
  required: ['amount', 'currency', 'display', 'text'],
  properties: {
    amount: { type: ['number', 'null'], description: 'null: no amount (price on application, or withheld from a public answer).' },
    currency,
    display: {
      type: 'boolean',
      description: 'false: the agent withholds the amount. Public answers then carry no amount (and no range), only the text, or "Contact agent".',
    },
    text: { type: ['string', 'null'], description: 'The price view shown instead of, or beside, the amount.' },
    ...amountExtras,
  },
} as const;

export const rentSchema = {
  $id: 'Rent',
  type: 'object',
  additionalProperties: false,
  required: ['amount', 'currency', 'period', 'display', 'text'],
  properties: {
    amount: { type: ['number', 'null'] },
    currency,
    period: { enum: ['week', 'month', 'year'] },
    display: { type: 'boolean', description: 'false: the agent withholds the amount; public answers carry the text instead.' },
    text: { type: ['string', 'null'] },
    ...amountExtras,
    plusOutgoings: { type: 'boolean', description: 'Commercial rent: outgoings are paid on top.' },
    perSqm: { ...rangeSchema, description: 'Commercial rent per square metre per year (a range; equal bounds for one amount).' },
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
    streetNumberText: { type: 'string', description: 'The street number as the feed gave it, when it was split into subNumber, streetNumber and lotNumber.' },
    site: { type: 'string', description: 'A building or site name.' },
    lotNumber: { type: 'string', description: 'Land lots ("5" of "Lot 5 Sample Road"); present only when the feed gives one.' },
    display: {
      type: 'boolean',
      description:
        'false: the agent withholds the street. Public answers carry no street, street number, sub or lot number or site, and coordinates of the locality.',
    },
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
    precision: {
      enum: ['source', 'street', 'locality', 'postcode', 'region'],
      description:
        "source: the feed's own coordinates; otherwise an offline gazetteer's (region: the centre of the state or province, for a locality the gazetteer does not have there).",
    },
    source: { type: 'string', description: 'feed, or the gazetteer used.' },
  },
} as const;

export const mediaItemSchema = {
  $id: 'MediaItem',
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'order', 'hero', 'slot'],
  properties: {
    url: { type: 'string', format: 'uri', description: 'http(s) only. Absent for an item of a zip feed that names a file instead.' },
    file: { type: 'string', description: "The file's path inside the feed's archive (REAXML file=), when the item has no URL." },
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
    social: {
      type: 'object',
      additionalProperties: false,
      properties: { twitter: { type: 'string' }, facebook: { type: 'string' }, linkedIn: { type: 'string' } },
      description: 'Social profile URLs (http(s) only).',
    },
  },
} as const;

const strings = (description: string) => ({ type: 'array', items: { type: 'string' }, description }) as const;
/** An object schema's properties, each with the same schema. */
const sameProperties = <const K extends readonly string[], const S extends object>(keys: K, schema: S) =>
  Object.fromEntries(keys.map((k) => [k, schema])) as { [P in K[number]]: S };

/** Fields beyond the core model, each present only when the feed gives it. */
export const extraProperties = {
  authority: { type: 'string', description: 'Sale authority: auction, exclusive, sale, setSale, tender, eoi, offers, multilist, conjunctional or open.' },
  exclusivity: { enum: ['exclusive', 'open'] },
  isMultiple: { type: 'boolean', description: 'Commercial: several properties (the price may be a range).' },
  depositTaken: { type: 'boolean' },
  yearBuilt: { type: 'integer' },
  yearLastRenovated: { type: 'integer' },
  commercial: {
    type: 'object',
    additionalProperties: false,
    description: 'Commercial terms.',
    properties: {
      categories: strings('Every commercial category, in feed order (subCategory is the first).'),
      outgoings: {
        type: 'object',
        additionalProperties: false,
        required: ['amount', 'currency', 'period'],
        properties: { amount: { type: ['number', 'null'] }, currency, period: { const: 'year' }, tax: taxSchema },
        description: 'Annual outgoings.',
      },
      return: { type: 'number', description: 'Annual return, percent.' },
      currentLeaseEndDate: { type: 'string', description: 'YYYY-MM-DD.' },
      zone: { type: 'string', description: 'Planning zone.' },
      tenancy: { enum: ['unknown', 'vacant', 'tenanted'] },
      propertyExtent: { enum: ['whole', 'part'] },
      carSpaces: { type: 'integer', minimum: 0 },
      parkingComments: { type: 'string' },
      furtherOptions: { type: 'string', description: 'Lease options.' },
      highlights: strings('Selling points, in their order.'),
    },
  },
  business: {
    type: 'object',
    additionalProperties: false,
    description: 'A business for sale.',
    properties: {
      categories: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'subCategory'],
          properties: { name: { type: 'string' }, subCategory: { type: ['string', 'null'] } },
        },
      },
      takings: { type: 'string' },
      lease: {
        type: 'object',
        additionalProperties: false,
        required: ['amount', 'currency', 'period'],
        properties: { amount: { type: ['number', 'null'] }, currency, period: { enum: ['week', 'month', 'year'] }, tax: taxSchema },
        description: "The business premises' lease.",
      },
      franchise: { type: 'boolean' },
      terms: { type: 'string' },
    },
  },
  rural: {
    type: 'object',
    additionalProperties: false,
    description: 'Rural features (descriptive text).',
    properties: sameProperties(['fencing', 'annualRainfall', 'soilTypes', 'improvements', 'councilRates', 'irrigation', 'carryingCapacity', 'services'], {
      type: 'string',
    }),
  },
  allowances: {
    type: 'object',
    additionalProperties: false,
    description: 'Rentals: what tenants may do or have.',
    properties: { pets: { type: 'boolean' }, furnished: { type: 'boolean' }, smokers: { type: 'boolean' } },
  },
  idealFor: strings('firstHomeBuyer, investors, downsizing, couples, students, lrgFamilies, retirees.'),
  views: strings('city, water, valley, mountain, ocean.'),
  ecoFriendly: strings('solarPanels, solarHotWater, waterTank, greyWaterSystem.'),
  municipality: { type: 'string' },
  streetDirectory: {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'page', 'reference'],
    properties: { type: { type: ['string', 'null'] }, page: { type: ['string', 'null'] }, reference: { type: ['string', 'null'] } },
    description: 'Street directory reference (melways, UBD). Never in public answers.',
  },
  estate: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'stage'],
    properties: { name: { type: 'string' }, stage: { type: ['string', 'null'] } },
  },
  land: {
    type: 'object',
    additionalProperties: false,
    properties: {
      frontageM: { type: 'number', description: 'Frontage, metres.' },
      depths: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['side', 'm'],
          properties: { side: { type: 'string', description: 'rear, left or right.' }, m: { type: 'number' } },
        },
      },
      crossOver: { type: 'string', description: 'left, right or center.' },
    },
  },
  energyRating: { type: 'number', minimum: 0, maximum: 10 },
  newConstruction: { type: 'boolean' },
  isHomeLandPackage: { type: 'boolean' },
  descriptionHtml: {
    ...localeText,
    description:
      'The description as sanitized HTML by locale (p, br, b, strong, i, em, u, lists, h2-h6, blockquote, and links with http(s) URLs only), present when the feed sent markup. description is always plain text.',
  },
  internetDisplay: {
    type: 'object',
    additionalProperties: false,
    description:
      "What the listing's source allows on the internet (RESO InternetEntireListingDisplayYN, InternetAddressDisplayYN, InternetAutomatedValuationDisplayYN, InternetConsumerCommentYN, IDXParticipationYN). listing false: the listing is in no public read. address false: the street is withheld, as address.display false. automatedValuation false: show no automated valuation beside it; consumerComments false: no consumer comments; idxParticipation false: not for IDX display on other brokers' sites. Consumers of this data honour them.",
    properties: {
      listing: { type: 'boolean' },
      address: { type: 'boolean' },
      automatedValuation: { type: 'boolean' },
      consumerComments: { type: 'boolean' },
      idxParticipation: { type: 'boolean' },
    },
  },
  listingOffices: {
    type: 'array',
    description: 'The listing office and the co-listing office as the source names them (RESO ListOffice*, CoListOffice*).',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['role', 'name', 'phone', 'email', 'sourceOfficeId'],
      properties: {
        role: { enum: ['list', 'coList'] },
        name: { type: ['string', 'null'] },
        phone: { type: ['string', 'null'] },
        email: { type: ['string', 'null'] },
        sourceOfficeId: { type: ['string', 'null'], description: 'The office key (else MLS id) at the source.' },
        logoUrl: {
          type: 'string',
          pattern: '^https?://',
          description: "The office's logo, when the source gives one (RESO Media with MediaCategory Office Logo).",
        },
      },
    },
  },
  sourceStatus: { type: 'string', description: "The source's own status (RESO MlsStatus), beside the standard status." },
  standardStatus: {
    type: 'string',
    enum: legacyODataValues('StandardStatus'),
    description:
      'RESO StandardStatus as the source gave it, in the Data Dictionary spelling: `status` folds several into one (Pending and ActiveUnderContract are both under_offer), this keeps them apart and the RESO Web API serves it back.',
  },
  listedDate: { type: 'string', description: 'When the listing agreement was signed (RESO ListingContractDate), YYYY-MM-DD.' },
  daysOnMarket: { type: 'integer', minimum: 0, description: 'As the source counts them (RESO DaysOnMarket).' },
  originalPrice: {
    type: 'object',
    additionalProperties: false,
    required: ['amount', 'currency'],
    description: 'The first asking price (RESO OriginalListPrice).',
    properties: { amount: { type: 'number' }, currency: { type: 'string' } },
  },
  parcelNumber: { type: 'string', description: "The land's parcel (tax) number (RESO ParcelNumber)." },
  directions: { type: 'string', description: 'Driving directions (RESO Directions).' },
  bathroomParts: {
    type: 'object',
    additionalProperties: false,
    description:
      'Bathrooms by kind (RESO BathroomsFull, BathroomsThreeQuarter, BathroomsHalf, BathroomsOneQuarter, BathroomsPartial); bathrooms is their count.',
    properties: sameProperties(['full', 'threeQuarter', 'half', 'oneQuarter', 'partial'], { type: 'integer', minimum: 0 }),
  },
  stories: { type: 'number', minimum: 0, description: 'Storeys of the building (RESO StoriesTotal).' },
  annualTax: {
    type: 'object',
    additionalProperties: false,
    required: ['amount', 'currency', 'year'],
    description: 'Annual property tax (RESO TaxAnnualAmount, TaxYear).',
    properties: { amount: { type: 'number' }, currency: { type: 'string' }, year: { type: ['integer', 'null'] } },
  },
  associationFee: {
    type: 'object',
    additionalProperties: false,
    required: ['amount', 'currency', 'period', 'text'],
    description:
      "Owners' association fee (RESO AssociationFee with AssociationFeeFrequency), converted to a week, month or year as rents are; a frequency that cannot be (One Time, Seasonal) keeps the amount as text.",
    properties: {
      amount: { type: ['number', 'null'] },
      currency: { type: 'string' },
      period: { enum: ['week', 'month', 'year', null] },
      text: { type: ['string', 'null'] },
    },
  },
  waterfront: { type: 'boolean', description: 'RESO WaterfrontYN.' },
  rooms: {
    type: 'array',
    description: 'Rooms (RESO Rooms collection: RoomType, RoomLevel, RoomDimensions, RoomArea with RoomAreaUnits, RoomDescription), in the source order.',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'level', 'dimensions', 'areaSqm', 'description'],
      properties: {
        type: { type: ['string', 'null'] },
        level: { type: ['string', 'null'] },
        dimensions: { type: ['string', 'null'], description: 'As the source writes them, e.g. "12x14".' },
        areaSqm: { type: ['number', 'null'] },
        description: { type: ['string', 'null'] },
      },
    },
  },
  openHomes: {
    type: 'array',
    description:
      'Open homes (REAXML inspections, RESO OpenHouse) as instants, in time order, each with the source text it was read from. A public answer lists only those not yet ended, as { start, end } (docs/reads.md, Open homes and auctions).',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['start', 'end'],
      properties: { start: isoDateTime, end: isoDateTime, text: { type: 'string', description: 'As the source wrote it (not in public answers).' } },
    },
  },
  timeZone: {
    type: 'string',
    description:
      "The IANA time zone the listing's local times are read in (its state, else its country); present once a record carried inspections or an auction (REAXML) or open houses (RESO).",
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
    status: { enum: [...LISTING_STATUSES] },
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
    inspections: {
      type: 'array',
      items: { type: 'string' },
      description:
        'The inspection times as the source wrote them, readable or not (openHomes holds those read as times). A public answer leaves out those read as times that have ended.',
    },
    links: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'url'],
        properties: { kind: { enum: ['externalLink', 'videoLink', 'availabilityLink', 'miniweb', 'virtualTour'] }, url: { type: 'string' } },
      },
    },
    hidden: { type: 'boolean', description: 'Hidden by an operator (never set by ingestion).' },
    projectKey: { type: ['string', 'null'], description: 'The project a new-home listing belongs to.' },
    ...extraProperties,
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
