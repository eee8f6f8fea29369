import { errorResponse, header, json, queryParameters } from './openapi-helpers.js';

const unavailable = errorResponse('Database unavailable, or the read took longer than the database allows (DB_READ_TIMEOUT_MS)');
/** Also the costly searches' share of the database connections (docs/reads.md, "Shares of the read pool"). */
const searchUnavailable = {
  description:
    'Database unavailable; the search took longer than the database allows (DB_READ_TIMEOUT_MS); or too many costly searches (keywords, map areas, facets) are running at once, with Retry-After',
  headers: { 'Retry-After': header('Seconds to wait before asking again, when too many costly searches are running') },
  content: json('Error'),
};
const invalid = errorResponse('A parameter is malformed or out of range (named in the error)');
/** The caching headers of every public read, and its 304. */
const cacheHeaders = {
  ETag: header('A strong validator of the answer: sent back in If-None-Match, an unchanged answer is a 304 with no body'),
  'Cache-Control': header('public, max-age=30: the same 30 s for which totals and facets may lag writes'),
};
const cached = (description: string, schema: string, extraHeaders: Record<string, unknown> = {}) => ({
  200: { description, headers: { ...cacheHeaders, ...extraHeaders }, content: json(schema) },
  304: { description: 'Not modified: If-None-Match named the current ETag', headers: cacheHeaders },
});

/** Paths of the public reads (no key). */
export function readPaths(): Record<string, unknown> {
  return {
    '/v1/listings': {
      get: {
        summary:
          'Search listings: where (locality, region, postcode, map area, radius), what (keywords, category, property type, rooms, land, status), how much; sorted, faceted, paged by cursor',
        description:
          "Public listings only: shown (not hidden by an operator nor withheld by their source) and, unless status says otherwise, on the market (active or under offer); sold and leased ones with status (and soldSince). Every filter combines with every other. Prices, places and keywords are those a public answer shows: a withheld price matches no price bound and sorts last, a withheld street is not a keyword, and a withheld address is placed at its locality. Lists are comma separated. Page with next (cursor=, also in the Link header), or with offset as before. Each listing carries displayPrice, addressLine, heroImage and primaryAgent for rendering, and its open homes to come (openHomes). openFrom and openTo find listings open for inspection on a day (in each listing's own time zone) or between two instants; sort=nextOpenHome puts the soonest open home first.",
        parameters: queryParameters('ListingSearchQuery', { examples: true }),
        responses: {
          ...cached('A page, the total, the next cursor and the facets asked for', 'ListingPage', {
            Link: header('<the same search with cursor=next>; rel="next", when there is a next page'),
          }),
          400: invalid,
          503: searchUnavailable,
        },
      },
    },
    '/v1/listings/{office}/{uniqueId}': {
      get: {
        summary: 'One listing as the public sees it (public, sold or leased)',
        parameters: ['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        responses: {
          ...cached("The listing, with the agent's display choices honoured", 'PublicListing'),
          404: errorResponse(
            'Not listed: "listing {office}/{uniqueId} is no longer listed: it was withdrawn" (or taken off the market, or no longer in its agency\'s feed) for one that was, so a portal can retire its page; "no listing {office}/{uniqueId}" for one never stored, hidden by an operator or withheld by its source',
          ),
          503: unavailable,
        },
      },
    },
    '/v1/listings/{office}/{uniqueId}/history': {
      get: {
        summary: "A listing's public history: listed, price changes, under offer, sold or leased, withdrawn, back on the market",
        description:
          "From the service's change log, newest first, paged by cursor. It honours the agent's display choices at every step: an amount withheld when it applied never appears, and while the agent withholds the price now no asking amount appears at all. Events are kept while the listing is stored and not archived.",
        parameters: [
          ...['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
          ...queryParameters('ListingHistoryQuery'),
        ],
        responses: {
          ...cached('Events, newest first, and the cursor for older ones', 'ListingHistory'),
          400: invalid,
          404: errorResponse('No public listing (never stored, hidden, withheld by its source, or no longer listed): it has no public history'),
          503: unavailable,
        },
      },
    },
    '/v1/listings/{office}/{uniqueId}/calendar.ics': {
      get: {
        summary: "A listing's open homes and auction as an iCalendar (RFC 5545) to subscribe to",
        description:
          "One VEVENT per open home not yet ended and for the auction (taken to last an hour) until it has ended, its times in the listing's own time zone (DTSTART;TZID=…, with a VTIMEZONE for each zone). A UID is the same for the same office, listing and start whichever feed carried it, so calendar apps update an event rather than add it twice. The location is the public address line: the locality alone when the agent withholds the street. A listing on the market without events has an empty calendar.",
        parameters: ['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        responses: {
          200: { description: 'The calendar', headers: cacheHeaders, content: { 'text/calendar': { schema: { type: 'string' } } } },
          304: { description: 'Not modified: If-None-Match named the current ETag', headers: cacheHeaders },
          404: errorResponse('No listing on the market (active or under offer) with this office and uniqueId'),
          503: unavailable,
        },
      },
    },
    '/v1/offices/{office}/calendar.ics': {
      get: {
        summary: "An office's open homes and auctions, of all its listings on the market, as an iCalendar (RFC 5545)",
        description:
          "As a listing's calendar (/v1/listings/{office}/{uniqueId}/calendar.ics), for every listing of the office on the market: the soonest 2,000 events. An office without any has an empty calendar.",
        parameters: [{ name: 'office', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          200: { description: 'The calendar', headers: cacheHeaders, content: { 'text/calendar': { schema: { type: 'string' } } } },
          304: { description: 'Not modified: If-None-Match named the current ETag', headers: cacheHeaders },
          503: unavailable,
        },
      },
    },
    '/v1/projects': {
      get: {
        summary: 'Search projects (new-home developments), newest modTime first, then projectKey',
        description: 'Every project not archived. Pushed with format=project; see the ProjectFeed schema.',
        parameters: queryParameters('ProjectSearchQuery'),
        responses: { ...cached('A page and the total', 'ProjectPage'), 400: invalid, 503: unavailable },
      },
    },
    '/v1/projects/{office}/{uniqueId}': {
      get: {
        summary: 'One project with its public child listings',
        parameters: ['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        responses: {
          ...cached('The canonical project and its public listings', 'ProjectWithListings'),
          404: errorResponse('Unknown or archived project'),
          503: unavailable,
        },
      },
    },
    '/v1/agents': {
      get: {
        summary: 'Agents of public listings: one per office and email (or name), most listings first',
        parameters: queryParameters('DirectoryQuery'),
        responses: { ...cached('A page and the total', 'AgentPage'), 400: invalid, 503: unavailable },
      },
    },
    '/v1/agents/{id}': {
      get: {
        summary: "One agent by id (a listing's primaryAgent.id or an agent's id); agent= on the listing search lists their listings",
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{16}$' } }],
        responses: {
          ...cached('The agent', 'Agent'),
          400: errorResponse('Not an agent id'),
          404: errorResponse('No agent of a public listing has this id'),
          503: unavailable,
        },
      },
    },
    '/v1/offices': {
      get: {
        summary: 'Offices of public listings: name, phone, localities, listing count and where they work; most listings first',
        parameters: queryParameters('DirectoryQuery'),
        responses: { ...cached('A page and the total', 'OfficePage'), 400: invalid, 503: unavailable },
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
        responses: { ...cached('Countries', 'Countries'), 503: unavailable },
      },
    },
  };
}
