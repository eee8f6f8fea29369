import {
  addressSchema,
  listingAgentSchema,
  listingSchema,
  locationSchema,
  mediaItemSchema,
  priceSchema,
  projectSchema,
  rentSchema,
} from '../../pipeline/listing-schema.js';
import { PUBLIC_OMITTED, PUBLIC_PROJECT_OMITTED } from '../../pipeline/public-view.js';
import { objectSchema, requiredObject } from './object-schema.js';

/**
 * JSON Schemas of the canonical records as the service stores and returns them (the listing and the
 * project are pipeline/listing-schema.ts, from which pipeline/types.ts derives their types), and of the
 * directory's agents and offices. The public reads, the dry run and the API description use them;
 * tests validate every fixture's preview and every read against them, so they say what the records
 * really hold.
 */

const stringArray = { type: 'array', items: { type: 'string' } } as const;

/** A schema without some of its fields (what a public answer leaves out of the stored record). */
function without<S extends { properties: object; required: readonly string[] }>(schema: S, $id: string, fields: readonly string[], description: string) {
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([key]) => !fields.includes(key)));
  return { ...schema, $id, description, properties, required: schema.required.filter((key) => !fields.includes(key)) };
}

const publicListingBase = without(
  listingSchema,
  'PublicListing',
  PUBLIC_OMITTED,
  'A listing as the public sees it: the stored record with the agent\'s display choices honoured. A price, rent or sold price the agent withholds (display false) has no amount, range or rent per square metre, and its text (the price view, else "Contact agent"; a sold price "Price withheld"); one shown as a range (displayRange) has the range and no amount. An address the agent withholds (display false) has no street, street number, sub or lot number or site, and its location is the locality\'s. A locality sent all in capitals or all in lower case is title-cased. The content hash, hidden flag and street directory reference are never included. displayPrice, addressLine, heroImage and primaryAgent are what a portal renders it with.',
);

/** What a portal renders a listing with (pipeline/display-fields.ts makes them from the public form). */
const displayProperties = {
  displayPrice: {
    type: 'string',
    description:
      'The price as the agent chose to show it: their price text, else the public amount or range in its currency ("$650,000", "$600,000 – $650,000", "$650 per week"), else "Contact agent". Sold: "Sold for $1,200,000", or the sold price\'s text ("Price withheld"), else "Sold"; leased: "Leased".',
    example: '$650,000',
  },
  addressLine: {
    type: ['string', 'null'],
    description: 'The address on one line: "2/12 Sample Road, Richmond VIC 3121"; the locality, region and postcode only when the agent withholds the street.',
    example: '2/12 Sample Road, Richmond VIC 3121',
  },
  heroImage: {
    oneOf: [{ type: 'null' }, requiredObject({ url: { type: 'string', format: 'uri' }, title: { type: ['string', 'null'] } })],
    description: 'The hero photo (else the first photo) with an http(s) URL; null when there is none.',
  },
  primaryAgent: {
    oneOf: [
      { type: 'null' },
      requiredObject({
        id: { type: ['string', 'null'], description: "The agent's id in the directory (GET /v1/agents/{id}; agent= on the search)." },
        name: { type: ['string', 'null'] },
        email: { type: ['string', 'null'] },
        phones: {
          type: 'array',
          items: requiredObject({ type: { type: 'string' }, number: { type: 'string' } }),
        },
      }),
    ],
    description: 'The first agent with a name or email; null when none.',
  },
  openHomes: {
    type: 'array',
    description:
      'The open homes not yet ended, soonest first, as ISO 8601 instants (UTC); [] when none. `inspections` keeps the texts they were read from (less those ended) and any text not readable as a time; `auction` is null once the auction (taken to last an hour) has passed. GET /v1/listings/{office}/{uniqueId}/calendar.ics has them as a calendar.',
    items: requiredObject({ start: { type: 'string', format: 'date-time' }, end: { type: 'string', format: 'date-time' } }, { additionalProperties: false }),
    example: [{ start: '2026-12-12T00:00:00Z', end: '2026-12-12T00:30:00Z' }],
  },
} as const;

/** A listing as public reads return it. */
export const publicListingSchema = {
  ...publicListingBase,
  properties: { ...publicListingBase.properties, ...displayProperties },
  required: [...publicListingBase.required, 'displayPrice', 'addressLine', 'heroImage', 'primaryAgent', 'openHomes'],
};

/** A project as public reads return it. */
export const publicProjectSchema = without(projectSchema, 'PublicProject', PUBLIC_PROJECT_OMITTED, 'A new-home development as the public sees it.');

export const agentSchema = objectSchema(
  'Agent',
  {
    id: {
      type: 'string',
      pattern: '^[0-9a-f]{16}$',
      description: 'Stable for the same office and agent (by email, else by name, in any case): GET /v1/agents/{id}, and agent= on the listing search.',
    },
    office: { type: 'string' },
    name: { type: ['string', 'null'] },
    email: { type: ['string', 'null'] },
    phones: { type: 'array', items: requiredObject({ type: { type: 'string' }, number: { type: 'string' } }) },
    listingCount: { type: 'integer', description: 'Public listings with this agent.' },
    countries: stringArray,
    localities: { ...stringArray, description: 'Localities of its public listings, alphabetically; at most the first 200.' },
  },
  { description: 'A directory agent: an agent of public listings, per office.', additionalProperties: false },
);

export const officeSchema = objectSchema(
  'Office',
  {
    office: { type: 'string' },
    name: {
      type: ['string', 'null'],
      description:
        "The office's name as its listings' source gives it (RESO ListOfficeName), from the latest public listing that has one; null when none does (REAXML names no office).",
    },
    phone: { type: ['string', 'null'], description: 'Likewise its phone (RESO ListOfficePhone).' },
    logoUrl: {
      type: ['string', 'null'],
      description:
        'Likewise its logo, an http(s) URL (RESO Media with MediaCategory Office Logo); null when no listing gives one (REAXML and project feeds carry no office logo).',
    },
    listingCount: { type: 'integer' },
    countries: stringArray,
    localities: { ...stringArray, description: 'Localities of its public listings, alphabetically; at most the first 200.' },
    location: {
      oneOf: [{ type: 'null' }, requiredObject({ lat: { type: 'number' }, lng: { type: 'number' } }, { additionalProperties: false })],
      description:
        'Where the office works: the centre of its located public listings in its most common locality (a real place, not the mean of listings spread over several cities).',
    },
  },
  { description: 'A directory office: an office with public listings.', additionalProperties: false },
);

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
