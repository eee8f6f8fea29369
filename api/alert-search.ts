import type { Knex } from 'knex';
import { type SavedSearchColumns, savedSearchColumns } from '../db/alert-matching.js';
import { keywordQuery } from '../db/listing-search/filters.js';
import { badRequest, HttpError } from '../lib/errors.js';
import { parseListingSearch } from './listing-search-query.js';

/**
 * A saved search from an alert request's `search`: the parameters of GET /v1/listings that say
 * which listings (place, map area, type, rooms, price, sale mode, keywords), checked by the same
 * rules, as JSON values (a list as an array or comma-separated text). Parameters about time,
 * order or paging do not belong in an alert, which is about listings coming on the market from
 * now on.
 */

/** Parameters of GET /v1/listings an alert refuses, with the reason given. */
const NOT_FOR_ALERTS: Record<string, string> = {
  status: 'alerts are about listings on the market (active and under offer)',
  soldSince: 'alerts are about listings on the market (active and under offer)',
  updatedSince: 'an alert covers what changes from now on',
  listedSince: 'an alert covers what changes from now on',
  openFrom: 'open-home times are not an alert criterion',
  openTo: 'open-home times are not an alert criterion',
  agent: 'alerts follow places and features, not an agent',
  sort: 'an alert has no order',
  facets: 'an alert has no facets',
  limit: 'an alert has no pages',
  offset: 'an alert has no pages',
  cursor: 'an alert has no pages',
};

/** A place an alert must name, so that it is about somewhere. */
const PLACES = ['locality', 'postcode', 'region', 'bbox', 'near', 'office', 'country'];

/** The search as query-string text, per parameter. */
function asQuery(search: Record<string, unknown>): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(search)) {
    const reason = NOT_FOR_ALERTS[name];
    if (reason) throw badRequest(`body.search.${name} is not an alert parameter: ${reason}`);
    if (Array.isArray(value)) {
      if (value.some((v) => typeof v !== 'string' && typeof v !== 'number')) throw badRequest(`body.search.${name} must list strings or numbers`);
      query[name] = value.join(',');
    } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      query[name] = String(value);
    } else {
      throw badRequest(`body.search.${name} must be a string, a number or a list of them`);
    }
  }
  return query;
}

/** The saved search of a request: its parameters as text (shown back to the subscriber) and its columns. */
export async function parseAlertSearch(db: Knex, search: Record<string, unknown>): Promise<{ params: Record<string, string>; columns: SavedSearchColumns }> {
  const params = asQuery(search);
  if (!PLACES.some((p) => params[p] !== undefined)) throw badRequest(`body.search needs a place: one of ${PLACES.join(', ')}`);
  let parsed: ReturnType<typeof parseListingSearch>['search'];
  try {
    parsed = parseListingSearch(params).search;
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) throw badRequest(err.message.replace(/\bquery\./g, 'body.search.'));
    throw err;
  }
  if (parsed.q) parsed.tsquery = await keywordQuery(db, parsed.q);
  if (parsed.q && parsed.tsquery === '') throw badRequest('body.search.q has only words too common to search by');
  return { params, columns: savedSearchColumns(parsed) };
}
