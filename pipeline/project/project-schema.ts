/**
 * The project document (format=project, docs/architecture.md, Formats and mapping) as JSON Schemas: the pipeline validates
 * each project with them and the OpenAPI document publishes them. Documented in docs/formats.md.
 */

import { FEED_STATUSES } from '../listing-statuses.js';

const text = (maxLength: number, description?: string) => ({ type: 'string', minLength: 1, maxLength, ...(description ? { description } : {}) }) as const;
const amount = (description: string) => ({ type: 'number', minimum: 0, description }) as const;
const statuses = FEED_STATUSES;
const categories = ['residential', 'rental', 'land', 'rural', 'commercial', 'commercialLand', 'business', 'holidayRental'] as const;

export const projectAddressSchema = {
  $id: 'ProjectAddress',
  type: 'object',
  additionalProperties: false,
  description: 'Country-first address; a project needs a locality or a postcode. lat/lng are kept with precision source, else the address is geocoded offline.',
  properties: {
    country: text(60, 'ISO-3166 alpha-2 or alpha-3 code or English name; default the context defaultCountry.'),
    region: text(60, 'State or province, e.g. NSW.'),
    locality: text(100),
    postcode: text(20),
    street: text(200),
    streetNumber: text(30),
    subNumber: text(30),
    display: { type: 'boolean', description: 'false hides the street address on portals; default true.' },
    lat: { type: 'number', minimum: -90, maximum: 90 },
    lng: { type: 'number', minimum: -180, maximum: 180 },
  },
} as const;

export const projectMediaSchema = {
  $id: 'ProjectMedia',
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: { type: 'string', pattern: '^https?://', maxLength: 2000 },
    kind: { enum: ['photo', 'floorplan', 'document'], default: 'photo' },
    hero: { type: 'boolean', description: 'The hero photo; default the first photo.' },
    title: text(200),
  },
} as const;

export const projectChildSchema = {
  $id: 'ProjectChild',
  type: 'object',
  additionalProperties: false,
  required: ['uniqueId'],
  description: "A child listing, written with canonical field names. It inherits the project's office, address and modTime unless it gives its own.",
  properties: {
    uniqueId: text(200),
    modTime: text(40, 'ISO-8601; zone-less times are read in the local zone of the address.'),
    status: { enum: statuses, default: 'active' },
    category: { enum: categories, default: 'residential' },
    saleMode: { enum: ['sale', 'rent'], description: 'Default rent for rental and holidayRental, else sale.' },
    price: amount("Sale price, or for saleMode rent the rent per rentPeriod, in the feed's currency."),
    rentPeriod: { enum: ['week', 'month'], default: 'week' },
    bedrooms: { type: 'number', minimum: 0, maximum: 100 },
    bathrooms: { type: 'number', minimum: 0, maximum: 100 },
    buildingAreaSqm: amount('Square metres.'),
    landAreaSqm: amount('Square metres.'),
    headline: text(500),
    description: text(20000),
    address: { $ref: 'ProjectAddress' },
    media: { type: 'array', maxItems: 200, items: { $ref: 'ProjectMedia' } },
  },
} as const;

export const projectDocumentSchema = {
  $id: 'ProjectInput',
  type: 'object',
  additionalProperties: false,
  required: ['uniqueId', 'modTime', 'name', 'stage', 'address', 'listings'],
  properties: {
    uniqueId: text(200),
    office: text(200, 'Office id; default the context sourceOfficeId.'),
    modTime: text(40, 'ISO-8601; zone-less times are read in the local zone of the address.'),
    name: text(300),
    developer: {
      anyOf: [
        text(300),
        {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: { name: text(300), websiteUrl: { type: 'string', pattern: '^https?://' }, logoUrl: { type: 'string', pattern: '^https?://' } },
        },
      ],
    },
    stage: { enum: ['off_the_plan', 'under_construction', 'completed'] },
    priceFrom: amount('Lowest price; default the lowest sale price among the children.'),
    priceTo: amount('Highest price; default the highest sale price among the children.'),
    completionDate: { type: 'string', pattern: '^\\d{4}(-\\d{2}(-\\d{2})?)?$', description: 'YYYY, YYYY-MM or YYYY-MM-DD.' },
    address: { $ref: 'ProjectAddress' },
    headline: text(500),
    description: text(20000),
    media: { type: 'array', maxItems: 200, items: { $ref: 'ProjectMedia' } },
    listings: { type: 'array', maxItems: 5000, items: { $ref: 'ProjectChild' } },
  },
} as const;

export const projectFeedSchema = {
  $id: 'ProjectFeed',
  type: 'object',
  required: ['projects'],
  description: 'The format=project document, carried as JSON text in `xml` (or as the raw body with format=project).',
  properties: { projects: { type: 'array', minItems: 1, items: { $ref: 'ProjectInput' } } },
  example: {
    projects: [
      {
        uniqueId: 'HARBOUR-VIEW',
        office: 'OFFICE1',
        modTime: '2026-11-01T09:00:00+11:00',
        name: 'Harbour View Residences',
        developer: { name: 'Example Developments', websiteUrl: 'https://developer.example' },
        stage: 'off_the_plan',
        completionDate: '2028-06',
        address: { street: 'Harbour Street', streetNumber: '10', locality: 'Pyrmont', region: 'NSW', postcode: '2009' },
        description: 'Forty apartments above the harbour.',
        media: [{ url: 'https://cdn.example/hv/hero.jpg', hero: true }],
        listings: [
          { uniqueId: 'HV-101', bedrooms: 1, bathrooms: 1, price: 750000, headline: 'One bedroom, level 1' },
          { uniqueId: 'HV-502', bedrooms: 3, bathrooms: 2, price: 2100000, buildingAreaSqm: 128 },
        ],
      },
    ],
  },
} as const;

export const projectSchemas = [projectAddressSchema, projectMediaSchema, projectChildSchema, projectDocumentSchema, projectFeedSchema];

/** The document as the schema describes it (after defaults). */
export interface ProjectAddressInput {
  country?: string;
  region?: string;
  locality?: string;
  postcode?: string;
  street?: string;
  streetNumber?: string;
  subNumber?: string;
  display?: boolean;
  lat?: number;
  lng?: number;
}
export interface ProjectMediaInput {
  url: string;
  kind: 'photo' | 'floorplan' | 'document';
  hero?: boolean;
  title?: string;
}
export interface ProjectChildInput {
  uniqueId: string;
  modTime?: string;
  status: (typeof statuses)[number];
  category: (typeof categories)[number];
  saleMode?: 'sale' | 'rent';
  price?: number;
  rentPeriod: 'week' | 'month';
  bedrooms?: number;
  bathrooms?: number;
  buildingAreaSqm?: number;
  landAreaSqm?: number;
  headline?: string;
  description?: string;
  address?: ProjectAddressInput;
  media?: ProjectMediaInput[];
}
export interface ProjectInput {
  uniqueId: string;
  office?: string;
  modTime: string;
  name: string;
  developer?: string | { name: string; websiteUrl?: string; logoUrl?: string };
  stage: 'off_the_plan' | 'under_construction' | 'completed';
  priceFrom?: number;
  priceTo?: number;
  completionDate?: string;
  address: ProjectAddressInput;
  headline?: string;
  description?: string;
  media?: ProjectMediaInput[];
  listings: ProjectChildInput[];
}
