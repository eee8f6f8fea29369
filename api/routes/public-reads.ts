import { type Request, type Response, Router } from 'express';
import type { DirectoryQuery, JsonPage, ListingAbsence, ListingJsonPage, PublicReads } from '../../db/public-reads.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { sendCacheable } from '../cacheable.js';
import { calendarText } from '../calendar.js';
import { type LinkTo, requestPathWith } from '../links.js';
import { encodeCursor, parseListingSearch } from '../listing-search-query.js';
import { assertValidQuery } from '../validators.js';

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

/** Listing search, single listing, agent and office directory, countries (no key needed). */
export function publicReadsRouter(reads: PublicReads, links: LinkTo): Router {
  const router = Router();

  router.get('/v1/listings', async (req, res) => {
    const { search, fingerprint } = parseListingSearch(req.query);
    const page: ListingJsonPage = await reads.searchListings(search);
    const next = page.after ? encodeCursor(fingerprint, page.after.value, page.after.key) : null;
    if (next) res.set('Link', `<${nextUrl(req, links, next)}>; rel="next"`);
    const facets = page.facets !== undefined ? `,"facets":${JSON.stringify(page.facets)}` : '';
    sendPage(req, res, 'listings', page, `,"totalIsLowerBound":${page.totalIsLowerBound},"next":${JSON.stringify(next)}${facets}`);
  });

  router.get('/v1/listings/:office/:uniqueId', async (req, res) => {
    const { office, uniqueId } = req.params as { office: string; uniqueId: string };
    const json = await reads.getListingJson(office, uniqueId);
    if (!json) {
      const absence = await reads.listingAbsence(office, uniqueId);
      if (absence === 'unknown') throw notFound(`no listing ${office}/${uniqueId}`);
      throw notFound(`listing ${office}/${uniqueId} is no longer listed: ${ABSENCE_TEXT[absence]}`);
    }
    sendCacheable(req, res, json);
  });

  router.get('/v1/listings/:office/:uniqueId/history', async (req, res) => {
    const { office, uniqueId } = req.params as { office: string; uniqueId: string };
    const query = assertValidQuery<{ limit: number; cursor?: string }>('ListingHistoryQuery', req.query);
    const page = await reads.listingHistory(office, uniqueId, { limit: query.limit, before: query.cursor });
    if (!page) throw notFound(`no public listing ${office}/${uniqueId}: only a listing the public can see has a public history`);
    sendCacheable(req, res, JSON.stringify(page));
  });

  /** The listing's public URL on this service, as a calendar event links it. */
  const listingUrl = (req: Request) => (office: string, uniqueId: string) =>
    links(req, `/v1/listings/${encodeURIComponent(office)}/${encodeURIComponent(uniqueId)}`);

  router.get('/v1/listings/:office/:uniqueId/calendar.ics', async (req, res) => {
    const { office, uniqueId } = req.params as { office: string; uniqueId: string };
    const events = await reads.calendarEvents(office, uniqueId);
    if (!events) throw notFound(`no listing ${office}/${uniqueId} on the market: only a public listing has a calendar`);
    sendCacheable(req, res, calendarText(`Open homes: ${office}/${uniqueId}`, events, listingUrl(req)), CALENDAR_TYPE);
  });

  router.get('/v1/offices/:office/calendar.ics', async (req, res) => {
    const office = String(req.params.office);
    const events = (await reads.calendarEvents(office)) ?? [];
    sendCacheable(req, res, calendarText(`Open homes: ${office}`, events, listingUrl(req)), CALENDAR_TYPE);
  });

  router.get('/v1/agents/:id', async (req, res) => {
    const id = String(req.params.id);
    if (!/^[0-9a-f]{16}$/.test(id)) throw badRequest(`path.id "${id.slice(0, 40)}" is not an agent id (16 hexadecimal digits)`);
    const json = await reads.getAgentJson(id);
    if (!json) throw notFound(`no agent ${id}`);
    sendCacheable(req, res, json);
  });

  for (const [path, name, list] of [
    ['/v1/agents', 'agents', (q: DirectoryQuery) => reads.listAgents(q)],
    ['/v1/offices', 'offices', (q: DirectoryQuery) => reads.listOffices(q)],
  ] as const) {
    router.get(path, async (req, res) => {
      const query = assertValidQuery<DirectoryQuery>('DirectoryQuery', req.query);
      if (query.country) query.country = query.country.toUpperCase();
      sendPage(req, res, name, await list(query));
    });
  }

  router.get('/v1/countries', async (req, res) => {
    sendCacheable(req, res, JSON.stringify({ countries: await reads.countries() }));
  });

  return router;
}
