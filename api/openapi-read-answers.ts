import { errorResponse, header, json } from './openapi-helpers.js';

// What every public read may answer, in the API description: its caching headers and 304, invalid
// parameters, an unavailable database.

export const unavailable = errorResponse('Database unavailable, or the read took longer than the database allows (DB_READ_TIMEOUT_MS)');
/** Also the costly searches' share of the database connections (docs/reads.md, "Shares of the read pool"). */
export const searchUnavailable = {
  description:
    'Database unavailable; the search took longer than the database allows (DB_READ_TIMEOUT_MS); or too many costly searches (keywords, map areas, facets) are running at once, with Retry-After',
  headers: { 'Retry-After': header('Seconds to wait before asking again, when too many costly searches are running') },
  content: json('Error'),
};
export const invalid = errorResponse('A parameter is malformed or out of range (named in the error)');
/** The caching headers of every public read, and its 304. */
export const cacheHeaders = {
  ETag: header('A strong validator of the answer: sent back in If-None-Match, an unchanged answer is a 304 with no body'),
  'Cache-Control': header('public, max-age=30: the same 30 s for which totals and facets may lag writes'),
};
export const cached = (description: string, schema: string, extraHeaders: Record<string, unknown> = {}) => ({
  200: { description, headers: { ...cacheHeaders, ...extraHeaders }, content: json(schema) },
  304: { description: 'Not modified: If-None-Match named the current ETag', headers: cacheHeaders },
});
