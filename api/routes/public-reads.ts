import type { Request, Response } from 'express';
import { createPublicReads, type DirectoryQuery, type JsonPage, type ListingAbsence, type ListingJsonPage } from '../../db/public-reads.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { sendCacheable } from '../cacheable.js';
import { calendarText } from '../calendar.js';
import { type LinkTo, requestPathWith } from '../links.js';
import { encodeCursor, parseListingSearch } from '../listing-search-query.js';
import { errorResponse, header } from '../openapi-helpers.js';
import { cached, cacheHeaders, invalid, searchUnavailable, unavailable } from '../openapi-read-answers.js';
import { perApp, type RouteSpec } from '../route-registry.js';
/**
 * Sends a page: the records arrive as JSON text from PostgreSQL and are passed through as they are.
 * nextOffset is where the next page starts (null when none): after `limit` records, or sooner when
 * the page reached its byte budget.
 */
export function sendPage(req: Request, res: Response, name: string, page: JsonPage, extra = ''): void {
  sendCacheable(req, res, `{"total":${page.total},"${name}":[${page.json.join(',')}],"nextOffset":${page.nextOffset}${extra}}`);
}

/** The same request with a cursor in place of its cursor or offset, as the Link header's URL. */
const nextUrl = (req: Request, links: LinkTo, cursor: string): string => links(req, requestPathWith(req, ['offset', 'cursor'], 'cursor', cursor));

/** RFC 5545's media type. */
const CALENDAR_TYPE = 'text/calendar; charset=utf-8';

const ABSENCE_TEXT: Record<Exclude<ListingAbsence, 'unknown'>, string> = {
  withdrawn: 'it was withdrawn',
  off_market: 'it was taken off the market',
  archived: "it is no longer in its agency's feed",
};

/** The listing's public URL on this service, as a calendar event links it. */
const listingUrl = (links: LinkTo, req: Request) => (office: string, uniqueId: string) =>
  links(req, `/v1/listings/${encodeURIComponent(office)}/${encodeURIComponent(uniqueId)}`);

/**
 * The public reads of an app, on the read pool (short statement timeout, bounded size). A total or
 * facet count that did not finish is answered as null; the operator hears of it in the log.
 */
const publicReadsOf = perApp(({ readDb, config, logger }) =>
  createPublicReads(readDb, {
    pageMaxBytes: config.publicPageMaxBytes,
    onCountError: (err: Error, what: string) => logger.warn({ err: err.message, what }, 'a public count did not finish; answered as null'),
    exactTotalMax: config.searchExactTotalMax,
    relevanceCandidates: config.searchRelevanceCandidates,
  }),
);

/** Listing search, single listing, agent and office directory, countries (no key needed). */
export const publicReadRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/listings',
    operationId: 'searchListings',
    tag: 'reads',
    auth: 'none',
    summary:
      'Search listings: where (locality, region, postcode, map area, radius), what (keywords, category, property type, rooms, land, status), how much; sorted, faceted, paged by cursor',
    description:
      "Public listings only: shown (not hidden by an operator nor withheld by their source) and, unless status says otherwise, on the market (active or under offer); sold and leased ones with status (and soldSince). Every filter combines with every other. Prices, places and keywords are those a public answer shows: a withheld price matches no price bound and sorts last, a withheld street is not a keyword, and a withheld address is placed at its locality. Lists are comma separated. Page with next (cursor=, also in the Link header), or with offset as before. Each listing carries displayPrice, addressLine, heroImage and primaryAgent for rendering, and its open homes to come (openHomes). openFrom and openTo find listings open for inspection on a day (in each listing's own time zone) or between two instants; sort=nextOpenHome puts the soonest open home first.",
    // Checked by parseListingSearch, which reads the same schema (and the cursor's fingerprint).
    query: 'ListingSearchQuery',
    queryExamples: true,
    responses: {
      ...cached('A page, the total, the next cursor and the facets asked for', 'ListingPage', {
        Link: header('<the same search with cursor=next>; rel="next", when there is a next page'),
      }),
      400: invalid,
      503: searchUnavailable,
    },
    handle: (deps) => async (req, res) => {
      const reads = publicReadsOf(deps);
      const { search, fingerprint } = parseListingSearch(req.query);
      const page: ListingJsonPage = await reads.searchListings(search);
      const next = page.after ? encodeCursor(fingerprint, page.after.value, page.after.key) : null;
      if (next) res.set('Link', `<${nextUrl(req, deps.links, next)}>; rel="next"`);
      const facets = page.facets !== undefined ? `,"facets":${JSON.stringify(page.facets)}` : '';
      sendPage(req, res, 'listings', page, `,"totalIsLowerBound":${page.totalIsLowerBound},"next":${JSON.stringify(next)}${facets}`);
    },
  },
  {
    method: 'get',
    path: '/v1/listings/{office}/{uniqueId}',
    operationId: 'getListing',
    tag: 'reads',
    auth: 'none',
    summary: 'One listing as the public sees it (public, sold or leased)',
    parameters: ['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    responses: {
      ...cached("The listing, with the agent's display choices honoured", 'PublicListing'),
      404: errorResponse(
        'Not listed: "listing {office}/{uniqueId} is no longer listed: it was withdrawn" (or taken off the market, or no longer in its agency\'s feed) for one that was, so a portal can retire its page; "no listing {office}/{uniqueId}" for one never stored, hidden by an operator or withheld by its source',
      ),
      503: unavailable,
    },
    handle: (deps) => async (req, res) => {
      const reads = publicReadsOf(deps);
      const { office, uniqueId } = req.params as { office: string; uniqueId: string };
      const json = await reads.getListingJson(office, uniqueId);
      if (!json) {
        const absence = await reads.listingAbsence(office, uniqueId);
        if (absence === 'unknown') throw notFound(`no listing ${office}/${uniqueId}`);
        throw notFound(`listing ${office}/${uniqueId} is no longer listed: ${ABSENCE_TEXT[absence]}`);
      }
      sendCacheable(req, res, json);
    },
  },
  {
    method: 'get',
    path: '/v1/listings/{office}/{uniqueId}/history',
    operationId: 'getListingHistory',
    tag: 'reads',
    auth: 'none',
    summary: "A listing's public history: listed, price changes, under offer, sold or leased, withdrawn, back on the market",
    description:
      "From the service's change log, newest first, paged by cursor. It honours the agent's display choices at every step: an amount withheld when it applied never appears, and while the agent withholds the price now no asking amount appears at all. Events are kept while the listing is stored and not archived.",
    parameters: [...['office', 'uniqueId'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }))],
    query: 'ListingHistoryQuery',
    responses: {
      ...cached('Events, newest first, and the cursor for older ones', 'ListingHistory'),
      400: invalid,
      404: errorResponse('No public listing (never stored, hidden, withheld by its source, or no longer listed): it has no public history'),
      503: unavailable,
    },
    handle:
      (deps, { validQuery }) =>
      async (req, res) => {
        const reads = publicReadsOf(deps);
        const { office, uniqueId } = req.params as { office: string; uniqueId: string };
        const query = validQuery<{ limit: number; cursor?: string }>(req);
        const page = await reads.listingHistory(office, uniqueId, { limit: query.limit, before: query.cursor });
        if (!page) throw notFound(`no public listing ${office}/${uniqueId}: only a listing the public can see has a public history`);
        sendCacheable(req, res, JSON.stringify(page));
      },
  },
  {
    method: 'get',
    path: '/v1/listings/{office}/{uniqueId}/calendar.ics',
    operationId: 'getListingCalendar',
    tag: 'reads',
    auth: 'none',
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
    handle: (deps) => async (req, res) => {
      const reads = publicReadsOf(deps);
      const { office, uniqueId } = req.params as { office: string; uniqueId: string };
      const events = await reads.calendarEvents(office, uniqueId);
      if (!events) throw notFound(`no listing ${office}/${uniqueId} on the market: only a public listing has a calendar`);
      sendCacheable(req, res, calendarText(`Open homes: ${office}/${uniqueId}`, events, listingUrl(deps.links, req)), CALENDAR_TYPE);
    },
  },
  {
    method: 'get',
    path: '/v1/offices/{office}/calendar.ics',
    operationId: 'getOfficeCalendar',
    tag: 'reads',
    auth: 'none',
    summary: "An office's open homes and auctions, of all its listings on the market, as an iCalendar (RFC 5545)",
    description:
      "As a listing's calendar (/v1/listings/{office}/{uniqueId}/calendar.ics), for every listing of the office on the market: the soonest 2,000 events. An office without any has an empty calendar.",
    parameters: [{ name: 'office', in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      200: { description: 'The calendar', headers: cacheHeaders, content: { 'text/calendar': { schema: { type: 'string' } } } },
      304: { description: 'Not modified: If-None-Match named the current ETag', headers: cacheHeaders },
      503: unavailable,
    },
    handle: (deps) => async (req, res) => {
      const reads = publicReadsOf(deps);
      const office = String(req.params.office);
      const events = (await reads.calendarEvents(office)) ?? [];
      sendCacheable(req, res, calendarText(`Open homes: ${office}`, events, listingUrl(deps.links, req)), CALENDAR_TYPE);
    },
  },
  {
    method: 'get',
    path: '/v1/agents/{id}',
    operationId: 'getAgent',
    tag: 'reads',
    auth: 'none',
    summary: "One agent by id (a listing's primaryAgent.id or an agent's id); agent= on the listing search lists their listings",
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{16}$' } }],
    responses: {
      ...cached('The agent', 'Agent'),
      400: errorResponse('Not an agent id'),
      404: errorResponse('No agent of a public listing has this id'),
      503: unavailable,
    },
    handle: (deps) => async (req, res) => {
      const reads = publicReadsOf(deps);
      const id = String(req.params.id);
      if (!/^[0-9a-f]{16}$/.test(id)) throw badRequest(`path.id "${id.slice(0, 40)}" is not an agent id (16 hexadecimal digits)`);
      const json = await reads.getAgentJson(id);
      if (!json) throw notFound(`no agent ${id}`);
      sendCacheable(req, res, json);
    },
  },
  ...(
    [
      ['/v1/agents', 'listAgents', 'agents', 'Agents of public listings: one per office and email (or name), most listings first', 'AgentPage'],
      [
        '/v1/offices',
        'listOffices',
        'offices',
        'Offices of public listings: name, phone, localities, listing count and where they work; most listings first',
        'OfficePage',
      ],
    ] as const
  ).map(
    ([path, operationId, name, summary, page]): RouteSpec => ({
      method: 'get',
      path,
      operationId,
      tag: 'reads',
      auth: 'none',
      summary,
      query: 'DirectoryQuery',
      responses: { ...cached('A page and the total', page), 400: invalid, 503: unavailable },
      handle:
        (deps, { validQuery }) =>
        async (req, res) => {
          const reads = publicReadsOf(deps);
          const query = validQuery<DirectoryQuery>(req);
          if (query.country) query.country = query.country.toUpperCase();
          sendPage(req, res, name, await (name === 'agents' ? reads.listAgents(query) : reads.listOffices(query)));
        },
    }),
  ),
  {
    method: 'get',
    path: '/v1/countries',
    operationId: 'listCountries',
    tag: 'reads',
    auth: 'none',
    summary: 'Public listings per country, most first',
    responses: { ...cached('Countries', 'Countries'), 503: unavailable },
    handle: (deps) => async (req, res) => {
      const reads = publicReadsOf(deps);
      sendCacheable(req, res, JSON.stringify({ countries: await reads.countries() }));
    },
  },
];
