// The OData side of the RESO Web API's requests: query options, paging tokens, content negotiation,
// the version check and errors in OData's form (the routes are api/routes/reso.ts).
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { isStatementCancelled } from '../../db/pg-errors.js';
import { isTokenValue } from '../../db/reso-query.js';
import type { ResoReads } from '../../db/reso-reads.js';
import { fieldOf, PROPERTY_EXPANDS, type PropertyExpand, RESOURCES, type ResoResource } from '../../db/reso-resources.js';
import { HttpError } from '../../lib/errors.js';
import { ODataSyntaxError, type OrderItem, parseFilter, parseNames, parseOrderBy } from '../../lib/odata-filter.js';
import { type LinkTo, requestPathWith } from '../links.js';
import { errorResponder } from '../middleware/error-handler.js';
import { MAX_OFFSET } from '../schemas/paging.js';
import { absoluteRecordUrls, expiredCheckpointMessage, firstWantedSequence } from './entity-events.js';

/** Where the RESO Web API lives (its service root). */
export const RESO_ROOT = '/v1/reso';
/** Records in a page when the client sets no $top nor odata.maxpagesize. */
export const RESO_DEFAULT_PAGE = 100;
/** The largest page; a larger $top is served in pages of this many (docs/reso.md, Paging). */
export const RESO_MAX_PAGE = 1000;
/** The largest page with $expand (each record carries its media, agent and office). */
export const RESO_MAX_EXPANDED_PAGE = 200;
/**
 * The largest $skip, the public reads' largest offset (10,000). The database walks every record a
 * skip passes over, so its cost grows with its depth and a skip of millions held a read connection
 * until its statement timeout; @odata.nextLink pages on at any depth for the cost of one page (its
 * $skiptoken starts after the last record sent), so a larger $skip is refused and names it.
 */
export const RESO_MAX_SKIP = MAX_OFFSET;

const SYSTEM_OPTIONS = new Set(['$filter', '$select', '$orderby', '$top', '$skip', '$count', '$expand', '$skiptoken', '$format']);
const JSON_TYPE = 'application/json;odata.metadata=minimal';

export const odataError = (status: number, code: string, message: string) => Object.assign(new HttpError(status, message), { odataCode: code });

/** A system query option's one value (a repeated option is refused). */
export function option(req: Request, name: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ODataSyntaxError(name, 'is given more than once');
  return value;
}

function nonNegative(req: Request, name: string): number | undefined {
  const text = option(req, name);
  if (text === undefined) return undefined;
  if (!/^\d{1,9}$/.test(text)) throw new ODataSyntaxError(name, `"${text.slice(0, 20)}" is not a whole number of 0 or more`);
  return Number(text);
}

/** `$skip`: a whole number up to RESO_MAX_SKIP; larger is a 400 telling the client to follow @odata.nextLink. */
function skipOption(req: Request): number {
  const text = option(req, '$skip');
  if (text === undefined) return 0;
  if (!/^\d+$/.test(text)) throw new ODataSyntaxError('$skip', `"${text.slice(0, 20)}" is not a whole number of 0 or more`);
  if (Number(text) > RESO_MAX_SKIP)
    throw new ODataSyntaxError(
      '$skip',
      `${text.length > 20 ? `${text.slice(0, 20)}…` : text} is more than ${RESO_MAX_SKIP}, the most this service skips; to read further, follow @odata.nextLink (its $skiptoken continues after the last record sent, at any depth)`,
    );
  return Number(text);
}

interface SkipToken {
  /** Order values of the last row sent. */
  a: (string | null)[];
  /** The page size the client's $top asked for, when it gave one: every page of the read keeps it. */
  t?: number;
}

const encodeToken = (token: SkipToken) => Buffer.from(JSON.stringify(token)).toString('base64url');

function decodeToken(text: string): SkipToken {
  try {
    const token = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (token && Array.isArray(token.a) && (token.t === undefined || (Number.isInteger(token.t) && token.t > 0))) return token;
  } catch {
    // answered below
  }
  throw new ODataSyntaxError('$skiptoken', 'is not one this service gave');
}

/** `Prefer: odata.maxpagesize=N` (OData's way to ask for a page size), if given. */
function preferredPageSize(req: Request): number | undefined {
  const match = /(?:^|[,;\s])odata\.maxpagesize=(\d{1,9})/.exec(req.get('prefer') ?? '');
  return match ? Math.max(1, Number(match[1])) : undefined;
}

export function parseSelect(resource: ResoResource, text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const names = parseNames(text, '$select');
  for (const name of names) if (name !== '*' && !fieldOf(resource, name)) throw new ODataSyntaxError('$select', `${resource.name} has no field ${name}`);
  return names;
}

export function parseExpand(resource: ResoResource, text: string | undefined): PropertyExpand[] {
  if (text === undefined) return [];
  const names = parseNames(text, '$expand');
  for (const name of names) {
    if (resource.name !== 'Property' || !(PROPERTY_EXPANDS as readonly string[]).includes(name))
      throw new ODataSyntaxError(
        '$expand',
        `${resource.name} has no navigation property ${name}${resource.name === 'Property' ? ` (it has ${PROPERTY_EXPANDS.join(', ')})` : ''}`,
      );
  }
  return [...new Set(names)] as PropertyExpand[];
}

/** The same request's URL with the skip token in place of $skip and $top. */
const nextLink = (req: Request, links: LinkTo, token: SkipToken): string =>
  links(req, requestPathWith(req, ['$skip', '$top', '$skiptoken'], '$skiptoken', encodeToken(token)));

export function sendJson(res: Response, body: string): void {
  res.type(JSON_TYPE).send(body);
}

/** A collection read: the query options parsed, bounded and run; a page with its nextLink when more follow. */
export async function collection(req: Request, res: Response, reads: ResoReads, links: LinkTo, resource: ResoResource): Promise<void> {
  for (const name of Object.keys(req.query)) {
    if (name.startsWith('$') && !SYSTEM_OPTIONS.has(name)) throw new ODataSyntaxError(name, 'is not a query option this service supports');
  }
  const filterText = option(req, '$filter');
  const filter = filterText === undefined ? undefined : parseFilter(filterText);
  const orderText = option(req, '$orderby');
  const orderby: OrderItem[] = orderText === undefined ? [] : parseOrderBy(orderText);
  const select = parseSelect(resource, option(req, '$select'));
  const expand = parseExpand(resource, option(req, '$expand'));
  const countText = option(req, '$count');
  if (countText !== undefined && countText !== 'true' && countText !== 'false')
    throw new ODataSyntaxError('$count', `${JSON.stringify(countText.slice(0, 40))} is not true or false`);
  const tokenText = option(req, '$skiptoken');
  const token = tokenText === undefined ? undefined : decodeToken(tokenText);
  const top = token ? token.t : nonNegative(req, '$top');
  const skip = token ? 0 : skipOption(req);
  const columns = reads.orderOf(resource, orderby);
  if (token && (token.a.length !== columns.length || !token.a.every((value, i) => isTokenValue(columns[i], value))))
    throw new ODataSyntaxError('$skiptoken', 'does not belong to this query (send the nextLink as it was given)');

  if (resource.name === 'EntityEvent') {
    const wanted = firstWantedSequence(filter);
    const { completeFrom, windowDays } = await reads.eventWindow();
    if (wanted !== null && wanted < BigInt(completeFrom))
      throw odataError(410, 'CheckpointExpired', expiredCheckpointMessage(wanted, completeFrom, windowDays));
  }

  // $top is the page size, as replication providers use it (docs/reso.md, Paging): the smaller of
  // it and odata.maxpagesize, at most the largest page; a nextLink follows whenever more match,
  // except after $top=0 (a count, not a read).
  const maxPage = expand.length ? RESO_MAX_EXPANDED_PAGE : RESO_MAX_PAGE;
  const preferred = preferredPageSize(req);
  const limit = Math.min(top ?? RESO_DEFAULT_PAGE, preferred ?? maxPage, maxPage);
  const page = await reads.page(resource, { filter, orderby, select, limit, skip, after: token?.a, count: countText === 'true', expand });
  const next = page.next && limit > 0 ? nextLink(req, links, { a: page.next, ...(top === undefined ? {} : { t: top }) }) : null;
  if (preferred !== undefined) res.set('Preference-Applied', `odata.maxpagesize=${Math.min(preferred, maxPage)}`);
  const head = [
    `"@odata.context":${JSON.stringify(`${links(req, RESO_ROOT)}/$metadata#${resource.name}`)}`,
    ...(page.count !== undefined ? [`"@odata.count":${page.count}`] : []),
    ...(next ? [`"@odata.nextLink":${JSON.stringify(next)}`] : []),
  ];
  const records = resource.name === 'EntityEvent' ? absoluteRecordUrls(page.records, links(req, RESO_ROOT)) : page.records;
  sendJson(res, `{${head.join(',')},"value":[${records.join(',')}]}`);
}

/** A resource by its name (never an Object prototype member). */
export const resourceNamed = (name: string): ResoResource | null => (Object.hasOwn(RESOURCES, name) ? RESOURCES[name as ResoResource['name']] : null);

/** `Property('KEY')`: the key as OData writes a string (single quotes doubled inside). */
export function parseKeyPath(path: string): { resource: string; key: string } | null {
  const match = /^([A-Za-z]+)\('((?:[^']|'')*)'\)$/.exec(path);
  return match ? { resource: match[1], key: match[2].replace(/''/g, "'") } : null;
}

/**
 * The first of `types` the request's Accept header takes (the first when it has none), false when
 * it takes none. Media type parameters other than q are left out before the comparison, so
 * `application/json;odata.metadata=full` takes the service's JSON as `application/json` does.
 */
function accepted(req: Request, types: string[]): string | false {
  const header = req.get('accept');
  if (header === undefined || header.trim() === '') return types[0];
  const plain = header
    .split(',')
    .map((range) =>
      range
        .split(';')
        .filter((part, i) => i === 0 || /^\s*q\s*=/i.test(part))
        .join(';'),
    )
    .join(',');
  // Express's own negotiation (req.accepts) over the header without parameters.
  const negotiate = req.accepts as (this: unknown, types: string[]) => string | false;
  return negotiate.call({ headers: { accept: plain } }, types);
}

const isJsonFormat = (format: string) => format === 'json' || /^application\/json(;|$)/.test(format);

/** A data request (service document, collection, record) answers JSON only: `$format` or `Accept` that excludes it is a 406. */
export const jsonOnly: RequestHandler = (req, _res, next) => {
  const format = option(req, '$format');
  const asked = format !== undefined ? `$format=${format.slice(0, 60)}` : `Accept: ${(req.get('accept') ?? '').slice(0, 100)}`;
  if (format !== undefined ? !isJsonFormat(format) : !accepted(req, ['application/json']))
    throw odataError(406, 'NotAcceptable', `this service answers application/json (OData JSON, odata.metadata=minimal); ${asked} does not take it`);
  next();
};

/** `$metadata` is CSDL XML: a `$format` or `Accept` that excludes XML is a 406 saying so. */
export function checkMetadataFormat(req: Request): void {
  const format = option(req, '$format');
  const xml = format !== undefined ? format === 'xml' || /^application\/xml(;|$)/.test(format) : accepted(req, ['application/xml', 'text/xml']);
  if (!xml) {
    const asked = format !== undefined ? `$format=${format.slice(0, 60)}` : `Accept: ${(req.get('accept') ?? '').slice(0, 100)}`;
    throw odataError(406, 'NotAcceptable', `$metadata is served as XML (CSDL, application/xml) only; ${asked} does not take it`);
  }
}

export const checkVersion: RequestHandler = (req, res, next) => {
  res.set('OData-Version', '4.0');
  const asked = req.get('odata-version')?.trim();
  if (asked !== undefined && !['4.0', '4.01'].includes(asked))
    throw odataError(400, 'UnsupportedVersion', `OData-Version ${asked.slice(0, 10)} is not served; this service speaks 4.0`);
  next();
};

/** Errors in OData's JSON form: `{"error":{"code","message"}}`; a query it cannot run is a 400 naming the part. */
const odataBody = errorResponder((status, message, err) => ({
  error: {
    code: (err as { odataCode?: string }).odataCode ?? (status === 404 ? 'NotFound' : status >= 500 ? 'ServiceError' : 'BadRequest'),
    message,
    ...(err instanceof ODataSyntaxError ? { target: err.option } : {}),
  },
}));
/** A read the database cancelled at its statement timeout (DB_READ_TIMEOUT_MS): the service's to retry, not a fault to hide behind a 500. */
const tooSlow = () =>
  odataError(503, 'ServiceUnavailable', 'the query did not finish within the time this service gives one read; try again shortly, or narrow $filter');
export const odataErrors: ErrorRequestHandler = (err, req, res, next) => {
  res.set('OData-Version', '4.0');
  if (isStatementCancelled(err)) {
    req.log?.warn({ err: (err as Error).message, url: req.originalUrl }, 'a RESO read did not finish within DB_READ_TIMEOUT_MS');
    odataBody(tooSlow(), req, res, next);
    return;
  }
  odataBody(err, req, res, next);
};
