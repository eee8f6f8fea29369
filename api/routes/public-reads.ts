import { type Response, Router } from 'express';
import type { DirectoryQuery, JsonPage, ListingSearch, PublicReads } from '../../db/public-reads.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { assertValidQuery } from '../validators.js';

/**
 * Sends a page: the records arrive as JSON text from PostgreSQL and are passed through as they are.
 * nextOffset is where the next page starts (null when none): after `limit` records, or sooner when
 * the page reached its byte budget.
 */
export function sendPage(res: Response, name: string, page: JsonPage): void {
  res.type('application/json').send(`{"total":${page.total},"${name}":[${page.json.join(',')}],"nextOffset":${page.nextOffset}}`);
}

/** Listing search, single listing, agent and office directory, countries (no key needed). */
export function publicReadsRouter(reads: PublicReads): Router {
  const router = Router();

  router.get('/v1/listings', async (req, res) => {
    const search = assertValidQuery<ListingSearch>('ListingSearchQuery', req.query);
    if (search.minPrice !== undefined && search.maxPrice !== undefined && search.minPrice > search.maxPrice) {
      throw badRequest(`query.minPrice (${search.minPrice}) is greater than query.maxPrice (${search.maxPrice})`);
    }
    if (search.country) search.country = search.country.toUpperCase();
    sendPage(res, 'listings', await reads.searchListings(search));
  });

  router.get('/v1/listings/:office/:uniqueId', async (req, res) => {
    const { office, uniqueId } = req.params as { office: string; uniqueId: string };
    const json = await reads.getListingJson(office, uniqueId);
    if (!json) throw notFound(`no listing ${office}/${uniqueId}`);
    res.type('application/json').send(json);
  });

  for (const [path, name, list] of [
    ['/v1/agents', 'agents', (q: DirectoryQuery) => reads.listAgents(q)],
    ['/v1/offices', 'offices', (q: DirectoryQuery) => reads.listOffices(q)],
  ] as const) {
    router.get(path, async (req, res) => {
      const query = assertValidQuery<DirectoryQuery>('DirectoryQuery', req.query);
      if (query.country) query.country = query.country.toUpperCase();
      sendPage(res, name, await list(query));
    });
  }

  router.get('/v1/countries', async (_req, res) => {
    res.json({ countries: await reads.countries() });
  });

  return router;
}
