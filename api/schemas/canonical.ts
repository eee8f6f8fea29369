import {
  addressSchema,
  currency,
  isoDateTime,
  listingAgentSchema,
  listingSchema,
  localeText,
  locationSchema,
  mediaItemSchema,
  nullable,
  priceSchema,
  rentSchema,
} from '../../pipeline/listing-schema.js';
import { PUBLIC_OMITTED, PUBLIC_PROJECT_OMITTED } from '../../pipeline/public-view.js';

/**
 * JSON Schemas of the canonical records as the service stores and returns them (pipeline/types.ts
 * CanonicalListing, whose schemas are pipeline/listing-schema.ts, and CanonicalProject), and of the
 * directory's agents and offices. The public reads, the dry run and the API description use them;
 * tests validate every fixture's preview and every read against them, so they say what the records
 * really hold.
 */

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

/** A schema without some of its fields (what a public answer leaves out of the stored record). */
function without<S extends { properties: object; required: readonly string[] }>(schema: S, $id: string, fields: readonly string[], description: string) {
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([key]) => !fields.includes(key)));
  return { ...schema, $id, description, properties, required: schema.required.filter((key) => !fields.includes(key)) };
}

/** A listing as public reads return it. */
export const publicListingSchema = without(
  listingSchema,
  'PublicListing',
  PUBLIC_OMITTED,
  'A listing as the public sees it: the stored record with the agent\'s display choices honoured. A price, rent or sold price the agent withholds (display false) has no amount, range or rent per square metre, and its text (the price view, else "Contact agent"; a sold price "Price withheld"); one shown as a range (displayRange) has the range and no amount. An address the agent withholds (display false) has no street, street number, sub or lot number or site, and its location is the locality\'s. The content hash, hidden flag and street directory reference are never included.',
);

/** A project as public reads return it. */
export const publicProjectSchema = without(projectSchema, 'PublicProject', PUBLIC_PROJECT_OMITTED, 'A new-home development as the public sees it.');

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
    localities: { ...stringArray, description: 'Localities of its public listings, alphabetically; at most the first 200.' },
  },
} as const;

export const officeSchema = {
  $id: 'Office',
  type: 'object',
  description: 'A directory office: an office with public listings.',
  additionalProperties: false,
  required: ['office', 'name', 'phone', 'listingCount', 'countries', 'localities', 'location'],
  properties: {
    office: { type: 'string' },
    name: {
      type: ['string', 'null'],
      description:
        "The office's name as its listings' source gives it (RESO ListOfficeName), from the latest public listing that has one; null when none does (REAXML names no office).",
    },
    phone: { type: ['string', 'null'], description: 'Likewise its phone (RESO ListOfficePhone).' },
    listingCount: { type: 'integer' },
    countries: stringArray,
    localities: { ...stringArray, description: 'Localities of its public listings, alphabetically; at most the first 200.' },
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
  publicListingSchema,
  projectSchema,
  publicProjectSchema,
  agentSchema,
  officeSchema,
];
