import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may be sent. An integrator names the URL, and the service then calls it, so a
 * URL pointing inside our own network (loopback, private, link-local such as a cloud metadata
 * service, carrier-grade NAT, multicast, reserved) would let anyone with a feed key reach it
 * (server-side request forgery). Only https to public unicast addresses is allowed, checked when
 * the endpoint is registered and again at every connection (the name may resolve elsewhere by
 * then: DNS rebinding). WEBHOOK_ALLOW_PRIVATE_NETWORKS=1 lifts both rules, for development and
 * for receivers on an intranet.
 */

/** IANA's global unicast IPv6 space (2000::/3): every public IPv6 address lies inside it. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
/** NAT64's well-known prefix (RFC 6052): the last 32 bits are the IPv4 address it reaches. */
const NAT64_V6 = ipaddr.parseCIDR('64:ff9b::/96');

/** The IPv4 address in an IPv6 address's last 32 bits. */
const lastV4 = (parts: number[]): ipaddr.IPv4 => new ipaddr.IPv4([parts[6] >> 8, parts[6] & 0xff, parts[7] >> 8, parts[7] & 0xff]);

/**
 * Whether an address is one a webhook may reach: ordinary public unicast only. IPv4 must be in
 * ipaddr.js's `unicast` range (not loopback, private, link-local, carrier-grade NAT, multicast,
 * broadcast, unspecified or reserved). IPv6 must be global unicast (2000::/3, where ipaddr.js
 * finds no special range), which leaves out loopback, unspecified, unique-local, link-local,
 * multicast and every form in ::/8 (the deprecated IPv4-compatible ::a.b.c.d, ::ffff:0:a.b.c.d)
 * as well as 6to4 (2002::/16), Teredo (2001::/32) and the documentation ranges. The two forms
 * that carry an IPv4 address to a real destination are judged by that address: IPv4-mapped
 * (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d); so is an ISATAP interface id (…:5efe:a.b.c.d),
 * whose IPv4 address is where a tunnel would deliver it.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.zoneId !== undefined) return false;
  const parts = v6.parts;
  // ::ffff:a.b.c.d; and 64:ff9b::a.b.c.d, whose address is whatever IPv4 address it embeds.
  if (v6.range() === 'ipv4Mapped' || v6.match(NAT64_V6)) return lastV4(parts).range() === 'unicast';
  if (!v6.match(GLOBAL_UNICAST_V6) || v6.range() !== 'unicast') return false;
  // ISATAP (RFC 5214): an interface id of 0000:5efe or 0200:5efe, then an IPv4 address.
  if ((parts[4] & 0xfdff) === 0 && parts[5] === 0x5efe && lastV4(parts).range() !== 'unicast') return false;
  return true;
}

export class WebhookAddressError extends Error {}

/** A webhook URL as stored (serialised), or a WebhookAddressError saying what is wrong with it. */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookAddressError(`"${raw.slice(0, 200)}" is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw new WebhookAddressError(`a webhook URL must use https (got ${url.protocol.replace(':', '')})`);
  }
  if (url.username || url.password) throw new WebhookAddressError('a webhook URL may not carry a user name or password');
  if (url.hash) throw new WebhookAddressError('a webhook URL may not carry a #fragment');
  if (allowPrivate) return url.href;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(host) ? [host] : await resolve(host);
  const refused = addresses.find((a) => !isPublicAddress(a));
  if (refused) throw new WebhookAddressError(`${url.hostname} resolves to ${refused}, which is not a public address; webhooks go to public addresses only`);
  return url.href;
}

async function resolve(host: string): Promise<string[]> {
  try {
    return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    throw new WebhookAddressError(`${host} does not resolve`);
  }
}

/** A lookup for http(s).request that refuses names resolving to non-public addresses (every connection is checked). */
export function publicOnlyLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true, verbatim: true }, (err, found) => {
      if (err) return callback(err, '', 0);
      const addresses = found as LookupAddress[];
      const refused = allowPrivate ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (refused) return callback(new WebhookAddressError(`${hostname} resolves to ${refused.address}, which is not a public address`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
