import type { Request } from 'express';
import { badRequest, payloadTooLarge, unsupportedMediaType } from '../lib/errors.js';
import { isCountryCode, isCurrencyCode } from '../pipeline/countries.js';
import { chunkString, decodeXmlBytes } from '../pipeline/decode.js';
import type { FeedContext, FeedFormat } from '../pipeline/types.js';
import { jsonBody } from './middleware/json-body.js';
import type { FeedContextBody, FeedQuery, FeedRequestBody } from './schemas/feed-request.js';
import { assertValid } from './validators.js';

/** A feed body: a string carried in JSON, or the raw request bytes (streamed, read once). */
export type FeedBody = { kind: 'text'; text: string } | { kind: 'bytes'; bytes: AsyncIterable<Buffer> };

export interface FeedInput {
  body: FeedBody;
  context: FeedContext;
  mode: 'full' | 'incremental';
  format: FeedFormat;
}

/** The body as text for the parser; raw bytes are decoded by their XML declaration. */
export function feedText(body: FeedBody): string | AsyncIterable<string> {
  return body.kind === 'text' ? body.text : decodeXmlBytes(body.bytes);
}

/** The body as bytes for storage; a JSON-carried string is stored as UTF-8. */
export async function* feedBytes(body: FeedBody): AsyncGenerator<Buffer> {
  if (body.kind === 'bytes') {
    yield* body.bytes;
    return;
  }
  for (const piece of chunkString(body.text, 1 << 20)) yield Buffer.from(piece, 'utf8');
}

const XML_TYPES = ['application/xml', 'text/xml'];
const JSON_FORMATS: readonly unknown[] = ['reso', 'project'];

/** A raw JSON document (RESO or project, format in the query) rather than a JSON feed request. */
function isRawJsonDocument(req: Request): boolean {
  return Boolean(req.is('application/json')) && JSON_FORMATS.includes(req.query.format);
}

/** express.json for feed requests; raw JSON documents are left to stream like raw XML. */
export function feedRequestJson(limit: number) {
  return jsonBody(limit, (req) => Boolean(req.is('application/json')) && !isRawJsonDocument(req));
}

/** Context with defaults, currency and country checked against ISO-4217 and ISO-3166. */
function resolveContext(body: FeedContextBody, where: { currency: string; country: string }): FeedContext {
  const currency = body.currency?.toUpperCase();
  if (currency !== undefined && !isCurrencyCode(currency)) {
    throw badRequest(`${where.currency} "${body.currency}" is not an ISO-4217 currency code`);
  }
  const defaultCountry = (body.defaultCountry ?? 'AU').toUpperCase();
  if (!isCountryCode(defaultCountry)) throw badRequest(`${where.country} "${body.defaultCountry}" is not an ISO-3166 alpha-2 country code`);
  return { currency, defaultCountry, sourceLocale: body.sourceLocale ?? 'en-AU', sourceOfficeId: body.sourceOfficeId };
}

/** Streams the request body, refusing it once it passes maxBytes. */
async function* limitedBody(req: Request, maxBytes: number): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) throw payloadTooLarge(`request body is larger than the limit of ${maxBytes} bytes`);
    yield chunk;
  }
}

/** The raw document streamed from the request, with the context in query parameters. */
function rawFeedInput(req: Request, maxBytes: number): FeedInput {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw payloadTooLarge(`request body is larger than the limit of ${maxBytes} bytes`);
  const query = assertValid<FeedQuery>('FeedQuery', { ...req.query }, 'query');
  return {
    body: { kind: 'bytes', bytes: limitedBody(req, maxBytes) },
    context: resolveContext(
      { currency: query.currency, defaultCountry: query.country, sourceLocale: query.locale, sourceOfficeId: query.officeId },
      { currency: 'query.currency', country: 'query.country' },
    ),
    mode: query.mode ?? 'incremental',
    format: query.format ?? 'reaxml',
  };
}

/**
 * The body forms of SPEC.md: a JSON feed request (already parsed by feedRequestJson), or the raw
 * document streamed from the request with the context in query parameters: REAXML as
 * application/xml or text/xml, RESO and project documents as application/json with
 * `format=reso` or `format=project` in the query.
 */
export function readFeedInput(req: Request, maxBytes: number): FeedInput {
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
    const body = assertValid<FeedRequestBody>('FeedRequest', req.body ?? null, 'body', { nulAllowedIn: ['xml'] });
    return {
      body: { kind: 'text', text: body.xml },
      context: resolveContext(body.context ?? {}, { currency: 'context.currency', country: 'context.defaultCountry' }),
      mode: body.mode ?? 'incremental',
      format: body.format ?? 'reaxml',
    };
  }
  if (req.is(XML_TYPES)) {
    if (JSON_FORMATS.includes(req.query.format)) throw unsupportedMediaType(`a ${req.query.format} document is JSON; send it as application/json`);
    return rawFeedInput(req, maxBytes);
  }
  throw unsupportedMediaType(`Content-Type must be application/json, application/xml or text/xml (got ${req.headers['content-type'] ?? 'none'})`);
}
