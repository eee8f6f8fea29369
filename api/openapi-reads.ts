import { errorResponse, json, queryParameters } from './openapi-helpers.js';

const unavailable = errorResponse('Database unavailable');
const invalid = errorResponse('A parameter is malformed or out of range (named in the error)');

/** Paths of the public reads (no key). */
export function readPaths(): Record<string, unknown> {
  return {
    '/v1/listings': {
      get: {
        summary: 'Search public listings, newest modTime first, then listingKey',
        description:
          'Public: not hidden, not archived, status active or under_offer. Price filters compare the sale price of sale listings and the weekly rent of rent listings (monthly x 12 / 52); with saleMode=both each listing is compared by its own amount.',
        parameters: queryParameters('ListingSearchQuery'),
        responses: { 200: { description: 'A page and the total', content: json('ListingPage') }, 400: invalid, 503: unavailable },
      },
    },
    '/v1/listings/{office}/{uniqueId}': {
      get: {
        summary: 'One listing as the public sees it (public, sold or leased)',
        parameters: ['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        responses: {
          200: { description: "The listing, with the agent's display choices honoured", content: json('PublicListing') },
          404: errorResponse('Unknown, hidden, archived, or in another status'),
          503: unavailable,
        },
      },
    },
    '/v1/projects': {
      get: {
        summary: 'Search projects (new-home developments), newest modTime first, then projectKey',
        description: 'Every project not archived. Pushed with format=project; see the ProjectFeed schema.',
        parameters: queryParameters('ProjectSearchQuery'),
        responses: { 200: { description: 'A page and the total', content: json('ProjectPage') }, 400: invalid, 503: unavailable },
      },
    },
    '/v1/projects/{office}/{uniqueId}': {
      get: {
        summary: 'One project with its public child listings',
        parameters: ['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        responses: {
          200: { description: 'The canonical project and its public listings', content: json('ProjectWithListings') },
          404: errorResponse('Unknown or archived project'),
          503: unavailable,
        },
      },
    },
    '/v1/agents': {
      get: {
        summary: 'Agents of public listings: one per office and email (or name), most listings first',
        parameters: queryParameters('DirectoryQuery'),
        responses: { 200: { description: 'A page and the total', content: json('AgentPage') }, 400: invalid, 503: unavailable },
      },
    },
    '/v1/offices': {
      get: {
        summary: 'Offices of public listings: localities, listing count, centroid; most listings first',
        parameters: queryParameters('DirectoryQuery'),
        responses: { 200: { description: 'A page and the total', content: json('OfficePage') }, 400: invalid, 503: unavailable },
      },
    },
    '/v1/fx': {
      get: {
        summary: 'FX rates: the bundled ECB snapshot (FX_SOURCE=static) or cached live rates with a backup source',
        description:
          'Live rates are refreshed hourly from FX_PRIMARY_URL (ECB daily XML), else FX_BACKUP_URL; when both fail the last good rates (at worst the snapshot) are served. Never an error.',
        responses: { 200: { description: 'Rates', content: json('FxRates') } },
      },
    },
    '/v1/countries': {
      get: {
        summary: 'Public listings per country, most first',
        responses: { 200: { description: 'Countries', content: json('Countries') }, 503: unavailable },
      },
    },
  };
}
