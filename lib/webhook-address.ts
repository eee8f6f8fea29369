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

/** Whether an address is one a webhook may reach: ordinary public unicast only. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
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
