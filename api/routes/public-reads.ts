import { Router } from 'express';
import type { DirectoryQuery, ListingSearch, PublicReads } from '../../db/public-reads.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { assertValidQuery } from '../validators.js';

/** Listing search, single listing, agent and office directory, countries (no key needed). */
export function publicReadsRouter(reads: PublicReads): Router {
  const router = Router();

  router.get('/v1/listings', async (req, res) => {
    const search = assertValidQuery<ListingSearch>('ListingSearchQuery', req.query);
    if (search.minPrice !== undefined && search.maxPrice !== undefined && search.minPrice > search.maxPrice) {
      throw badRequest(`query.minPrice (${search.minPrice}) is greater than query.maxPrice (${search.maxPrice})`);
    }
    if (search.country) search.country = search.country.toUpperCase();
    const { total, listingsJson } = await reads.searchListings(search);
    // The records arrive as JSON text from PostgreSQL and are passed through as they are.
    res.type('application/json').send(`{"total":${total},"listings":[${listingsJson.join(',')}]}`);
  });

  router.get('/v1/listings/:office/:uniqueId', async (req, res) => {
    const { office, uniqueId } = req.params as { office: string; uniqueId: string };
    const json = await reads.getListingJson(office, uniqueId);
    if (!json) throw notFound(`no listing ${office}/${uniqueId}`);
    res.type('application/json').send(json);
  });

  for (const [path, list] of [
    ['/v1/agents', (q: DirectoryQuery) => reads.listAgents(q)],
    ['/v1/offices', (q: DirectoryQuery) => reads.listOffices(q)],
  ] as const) {
    router.get(path, async (req, res) => {
      const query = assertValidQuery<DirectoryQuery>('DirectoryQuery', req.query);
      if (query.country) query.country = query.country.toUpperCase();
      res.json(await list(query));
    });
  }

  router.get('/v1/countries', async (_req, res) => {
    res.json({ countries: await reads.countries() });
  });

  return router;
}
