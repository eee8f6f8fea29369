import type { Request } from 'express';
import { badRequest, unsupportedMediaType } from '../lib/errors.js';
import { officeIdProblem } from '../lib/office-id.js';
import { defaultLocaleOf, isCountryCode, isCurrencyCode } from '../pipeline/countries.js';
import { decodeUtf8, decodeXmlBytes } from '../pipeline/decode.js';
import { assertJsonDocumentDepth, JSON_DOCUMENT_NAMES } from '../pipeline/json-document.js';
import type { FeedContext, FeedFormat } from '../pipeline/types.js';
import { readJsonFeedRequest } from './json-feed-request.js';
import { requestBytes } from './request-body.js';
import type { FeedContextBody, FeedQuery, FeedRequestBody } from './schemas/feed-request.js';
import type { SpooledBody } from './spool-body.js';
import { assertValid, assertValidQuery } from './validators.js';

/**
 * A feed body: the raw request bytes (streamed, read once), or the string a JSON feed request
 * carried in `xml`, already received into a temporary file as UTF-8.
 */
export type FeedBody = { kind: 'bytes'; stream: AsyncIterable<Buffer> } | { kind: 'text'; spooled: SpooledBody };

export interface FeedInput {
  body: FeedBody;
  context: FeedContext;
  mode: 'full' | 'incremental';
  format: FeedFormat;
  /** Removes what receiving the body left on disk; call once the body is no longer needed. */
  release(): Promise<void>;
}

/** The body as text for the parser: raw bytes are decoded by their XML declaration, a JSON-carried string is UTF-8. */
export function feedText(body: FeedBody): AsyncIterable<string> {
  return body.kind === 'bytes' ? decodeXmlBytes(body.stream) : decodeUtf8(body.spooled.read());
}

/**
 * A RESO or project document nested deeper than MAX_JSON_DEPTH is refused (400, in the words and
 * at the position its reader would give) once its body is received whole and before it is
 * stored: no worker would ever read it. One pass over the received text; REAXML is not looked at.
 */
export async function refuseTooDeepDocument(format: FeedFormat, kind: FeedBody['kind'], received: SpooledBody): Promise<void> {
  if (format === 'reaxml') return;
  const text = feedText(kind === 'bytes' ? { kind, stream: received.read() } : { kind, spooled: received });
  await assertJsonDocumentDepth(text, JSON_DOCUMENT_NAMES[format]);
}

const XML_TYPES = ['application/xml', 'text/xml'];
const JSON_FORMATS: readonly unknown[] = ['reso', 'project'];

/** A raw JSON document (RESO or project, format in the query) rather than a JSON feed request. */
function isRawJsonDocument(req: Request): boolean {
  return Boolean(req.is('application/json')) && JSON_FORMATS.includes(req.query.format);
}

/** Context with defaults, currency and country checked against ISO-4217 and ISO-3166, an office id given checked as one. */
function resolveContext(body: FeedContextBody, where: { currency: string; country: string; officeId: string }): FeedContext {
  const officeProblem = body.sourceOfficeId === undefined ? null : officeIdProblem(body.sourceOfficeId);
  if (officeProblem) throw badRequest(`${where.officeId}: ${officeProblem}`);
  const currency = body.currency?.toUpperCase();
  if (currency !== undefined && !isCurrencyCode(currency)) {
    throw badRequest(`${where.currency} "${body.currency}" is not an ISO-4217 currency code`);
  }
  const defaultCountry = (body.defaultCountry ?? 'AU').toUpperCase();
  if (!isCountryCode(defaultCountry)) throw badRequest(`${where.country} "${body.defaultCountry}" is not an ISO-3166 alpha-2 country code`);
  return { currency, defaultCountry, sourceLocale: body.sourceLocale ?? defaultLocaleOf(defaultCountry), sourceOfficeId: body.sourceOfficeId };
}

/** A context field given in the query by its name or by its older one; both at once is a 400. */
function eitherName(query: FeedQuery, name: keyof FeedContextBody, older: 'country' | 'locale' | 'officeId'): string | undefined {
  if (query[name] !== undefined && query[older] !== undefined) {
    throw badRequest(`query.${older} is the older name of query.${name}: give one of the two`);
  }
  return query[name] ?? query[older];
}

/** The raw document streamed from the request, with the context in query parameters. */
function rawFeedInput(req: Request, maxBytes: number): FeedInput {
  const query = assertValidQuery<FeedQuery>('FeedQuery', req.query);
  return {
    body: { kind: 'bytes', stream: requestBytes(req, maxBytes) },
    release: async () => undefined,
    context: resolveContext(
      {
        currency: query.currency,
        defaultCountry: eitherName(query, 'defaultCountry', 'country'),
        sourceLocale: eitherName(query, 'sourceLocale', 'locale'),
        sourceOfficeId: eitherName(query, 'sourceOfficeId', 'officeId'),
      },
      {
        currency: 'query.currency',
        country: query.country === undefined ? 'query.defaultCountry' : 'query.country',
        officeId: query.officeId === undefined ? 'query.sourceOfficeId' : 'query.officeId',
      },
    ),
    mode: query.mode ?? 'incremental',
    format: query.format ?? 'reaxml',
  };
}

/**
 * The body forms (docs/ingestion.md): a JSON feed request (its `xml` received into a temporary file as it
 * arrives, see readJsonFeedRequest), or the raw
 * document streamed from the request with the context in query parameters: REAXML as
 * application/xml or text/xml, RESO and project documents as application/json with
 * `format=reso` or `format=project` in the query.
 */
export async function readFeedInput(req: Request, maxBytes: number): Promise<FeedInput> {
  // Said first: without a body there is no content type to judge (an empty application/xml is not "the wrong type").
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || Number(length) === 0)) {
    throw badRequest('the request body is empty: send the feed as the body (raw XML, a RESO or project JSON document, or a JSON feed request)');
  }
  if (isRawJsonDocument(req)) return rawFeedInput(req, maxBytes);
  if (req.is('application/json')) {
    if (req.query.format !== undefined) {
      throw badRequest(
        `query.format must be reso or project for a raw JSON document (got ${JSON.stringify(req.query.format)}); a JSON feed request carries format in its body`,
      );
    }
    if (Object.keys(req.query).length > 0) {
      throw badRequest(
        `query parameters (${Object.keys(req.query).join(', ')}) apply only to raw bodies (XML, or JSON with format=reso or format=project); put them in the JSON body`,
      );
    }
    const charset = req.headers['content-type']?.match(/;\s*charset\s*=\s*"?([^";\s]+)/i)?.[1].toLowerCase();
    if (charset && charset !== 'utf-8' && charset !== 'utf8') throw unsupportedMediaType(`a JSON feed request must be UTF-8 (got charset ${charset})`);
    const { fields, xml } = await readJsonFeedRequest(requestBytes(req, maxBytes));
    try {
      const body = assertValid<FeedRequestBody>('FeedRequest', fields, 'body', { nulAllowedIn: ['xml'] });
      return {
        body: { kind: 'text', spooled: xml },
        release: () => xml.remove(),
        context: resolveContext(body.context ?? {}, { currency: 'context.currency', country: 'context.defaultCountry', officeId: 'context.sourceOfficeId' }),
        mode: body.mode ?? 'incremental',
        format: body.format ?? 'reaxml',
      };
    } catch (err) {
      await xml.remove();
      throw err;
    }
  }
  if (req.is(XML_TYPES)) {
    if (JSON_FORMATS.includes(req.query.format)) throw unsupportedMediaType(`a ${req.query.format} document is JSON; send it as application/json`);
    return rawFeedInput(req, maxBytes);
  }
  throw unsupportedMediaType(`Content-Type must be application/json, application/xml or text/xml (got ${req.headers['content-type'] ?? 'none'})`);
}
