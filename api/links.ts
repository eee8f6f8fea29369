import { isIPv6 } from 'node:net';
import type { Request, RequestHandler } from 'express';
import { badRequest } from '../lib/errors.js';

/**
 * Links in answers (a search's next page, the RESO Web API's nextLink and context) and the Host
 * header they may be built from.
 */

/** RFC 3986 host (a registered name, an IPv4 address or a bracketed IPv6 address) with an optional port. */
const HOST = /^(?:\[([0-9A-Fa-f:.]+)\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+)(?::(\d{0,5}))?$/;

/** Whether a Host header is a host with an optional port, which a URL can be made of. */
export function isValidHost(value: string): boolean {
  const match = HOST.exec(value);
  if (!match) return false;
  if (match[1] !== undefined && !isIPv6(match[1])) return false;
  if (match[2] && Number(match[2]) > 65535) return false;
  return URL.canParse(`http://${value}/`);
}

/**
 * HTTP/1.1 (RFC 9112, section 3.2) answers a request whose Host header is not a valid host and
 * port with 400, before anything reads it. A request without one (HTTP/1.0) passes: its links are
 * relative.
 */
export const refuseInvalidHost: RequestHandler = (req, _res, next) => {
  const host = req.headers.host;
  if (host === undefined || isValidHost(host)) return next();
  const shown = host.length > 100 ? `${host.slice(0, 100)}…` : host;
  throw badRequest(`the Host header ${JSON.stringify(shown)} is not a host name or address with an optional port`);
};

/** A path on this service (with its query) as the link an answer carries. */
export type LinkTo = (req: Request, path: string) => string;

/**
 * Links from the service's public base URL when one is configured (PUBLIC_BASE_URL: the Host
 * header then plays no part, so no request can make an answer point elsewhere). Else from the
 * request's scheme (X-Forwarded-Proto from a trusted proxy, TRUST_PROXY) and its Host header,
 * which refuseInvalidHost has checked; without a Host header, relative.
 */
export function linkTo(publicBaseUrl: string | null): LinkTo {
  if (publicBaseUrl !== null) return (_req, path) => `${publicBaseUrl}${path}`;
  // The host as a URL writes it (lower case, no default port), remembered for the few Host
  // values a deployment sees; the map is emptied when it fills, so no client can grow it.
  const hosts = new Map<string, string>();
  const normalised = (host: string) => {
    let found = hosts.get(host);
    if (found === undefined) {
      if (hosts.size >= 64) hosts.clear();
      found = new URL(`http://${host}`).host;
      hosts.set(host, found);
    }
    return found;
  };
  return (req, path) => {
    const host = req.headers.host;
    return host ? `${req.protocol}://${normalised(host)}${path}` : path;
  };
}

/** What a URL's path and query may hold as it is (RFC 3986: unreserved, sub-delims, ':', '@', '/', '?', and '%' of an escape). */
const UNSAFE_IN_URL = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/;
const UNSAFE_IN_URL_ALL = new RegExp(UNSAFE_IN_URL.source, 'g');

/** A query parameter's name as the query parser reads it ('+' a space, escapes decoded). */
function parameterName(part: string): string {
  const raw = part.split('=', 1)[0].replaceAll('+', ' ');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The request's path and query with the parameters named in `drop` left out (however their names
 * are escaped) and `name=value` appended, the rest kept as the client wrote them: a next page's
 * link. Anything a URL cannot hold as it is gets percent-encoded, so the link is a valid URL (and
 * cannot end a Link header's <...>). `value` must already be safe in a query (a cursor or a RESO
 * skip token is base64url). The search's Link header and the RESO Web API's nextLink are made so.
 */
export function requestPathWith(req: Request, drop: readonly string[], name: string, value: string): string {
  const url = req.originalUrl;
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  const kept =
    mark < 0
      ? []
      : url
          .slice(mark + 1)
          .split('&')
          .filter((part) => part !== '' && !drop.includes(parameterName(part)));
  kept.push(`${name}=${value}`);
  const link = `${path}?${kept.join('&')}`;
  return UNSAFE_IN_URL.test(link) ? link.replace(UNSAFE_IN_URL_ALL, (c) => encodeURIComponent(c)) : link;
}
