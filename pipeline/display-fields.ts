import { createHash } from 'node:crypto';
import type { Address, Agent, CanonicalListing, MediaItem, Price, Rent } from './types.js';

/**
 * What a portal renders a listing with, made from its public form (the agent's display choices
 * already applied), so no front end re-derives them (docs/reads.md, Answers a portal renders):
 * - displayPrice: the price text the agent chose, else the public amount or range formatted in its
 *   currency, else "Contact agent"; a sold listing's sold price ("Sold for …", or its text); a
 *   rent "… per week" (or month, year);
 * - addressLine: "2/12 Sample Road, Richmond VIC 3121", without the street when it is withheld;
 * - heroImage: the hero photo (else the first photo) with an http(s) URL, or null;
 * - primaryAgent: the first agent's id, name, email and phones, or null;
 * - the locality title-cased when the feed sent it all in capitals or all in lower case.
 */
export interface DisplayFields {
  displayPrice: string;
  addressLine: string | null;
  heroImage: { url: string; title: string | null } | null;
  primaryAgent: { id: string | null; name: string | null; email: string | null; phones: { type: string; number: string }[] } | null;
}

export const CONTACT_AGENT = 'Contact agent';

/**
 * An agent's stable id: the same for the same office and agent (by email, else by name, in any
 * case), as the directory's agents carry it: its key is the one db/directory.ts AGENT_KEY_SQL
 * makes (the email lower-cased as it is, else name: and the name), hashed as its agent_id column.
 */
export function agentId(office: string, agent: Pick<Agent, 'email' | 'name'>): string | null {
  const key = agent.email ? agent.email.toLowerCase() : agent.name ? `name:${agent.name.toLowerCase()}` : null;
  return key ? createHash('md5').update(`${office}/${key}`).digest('hex').slice(0, 16) : null;
}

/** "RICHMOND" and "north richmond" read as "Richmond" and "North Richmond"; a name in mixed case is the agent's own. */
export function titleCaseLocality(locality: string): string {
  if (locality !== locality.toUpperCase() && locality !== locality.toLowerCase()) return locality;
  return locality.toLowerCase().replace(/(^|[\s\-'(])(\p{L})/gu, (_m, before: string, letter: string) => before + letter.toUpperCase());
}

/**
 * Currency formats by locale, currency and fraction digits, made once each: making an
 * Intl.NumberFormat costs about 60 µs, using one about 1 µs, and every stored listing with a price
 * is formatted. null: the runtime has no such format (an unknown currency code).
 */
const moneyFormats = new Map<string, Intl.NumberFormat | null>();

function moneyFormat(locale: string, currency: string, fractionDigits: number): Intl.NumberFormat | null {
  const key = `${locale}|${currency}|${fractionDigits}`;
  let format = moneyFormats.get(key);
  if (format === undefined) {
    try {
      format = new Intl.NumberFormat(locale, { style: 'currency', currency, maximumFractionDigits: fractionDigits });
    } catch {
      format = null;
    }
    if (moneyFormats.size >= 1000) moneyFormats.clear();
    moneyFormats.set(key, format);
  }
  return format;
}

function money(amount: number, currency: string, country: string | undefined): string {
  const locale = country && /^[A-Z]{2}$/.test(country) ? `en-${country}` : 'en';
  const format = moneyFormat(locale, currency, Number.isInteger(amount) ? 0 : 2);
  return format ? format.format(amount) : `${currency} ${amount.toLocaleString('en')}`;
}

function amountText(price: Price | Rent, country: string | undefined): string | null {
  if (price.text?.trim()) return price.text.trim();
  if (price.amount !== null) return money(price.amount, price.currency, country);
  const range = price.range;
  if (range && range.min !== null && range.max !== null) return `${money(range.min, price.currency, country)} – ${money(range.max, price.currency, country)}`;
  if (range && range.min !== null) return `From ${money(range.min, price.currency, country)}`;
  return null;
}

function rentText(rent: Rent, country: string | undefined): string | null {
  const text = amountText(rent, country);
  if (!text || rent.text?.trim()) return text;
  return `${text} per ${rent.period}`;
}

/** The price text of a listing in its public form. */
export function displayPrice(listing: Pick<CanonicalListing, 'status' | 'saleMode' | 'price' | 'rent' | 'sold' | 'address'>): string {
  const country = listing.address?.country;
  if (listing.status === 'sold') {
    const sold = listing.sold?.price;
    if (sold?.amount != null) return `Sold for ${money(sold.amount, sold.currency, country)}`;
    return sold?.text?.trim() || 'Sold';
  }
  if (listing.status === 'leased') return 'Leased';
  if (listing.saleMode === 'rent') return (listing.rent && rentText(listing.rent, country)) || CONTACT_AGENT;
  return (listing.price && amountText(listing.price, country)) || CONTACT_AGENT;
}

/** The one-line address of a public address (its street is already null when withheld). */
export function addressLine(address: Address | null): string | null {
  if (!address) return null;
  const number = [address.subNumber ? `${address.subNumber}/` : '', address.streetNumber ?? ''].join('');
  const street = [number, address.street ?? ''].filter(Boolean).join(' ');
  const place = [address.locality ? titleCaseLocality(address.locality) : '', address.region ?? '', address.postcode ?? ''].filter(Boolean).join(' ');
  const line = [street, place].filter(Boolean).join(', ');
  return line || null;
}

const httpUrl = (url: string | undefined): url is string => !!url && /^https?:\/\//i.test(url);

export function heroImage(media: MediaItem[]): DisplayFields['heroImage'] {
  const photos = media.filter((m) => m.kind === 'photo' && httpUrl(m.url)).sort((a, b) => a.order - b.order);
  const hero = photos.find((m) => m.hero) ?? photos[0];
  return hero ? { url: hero.url!, title: hero.title ?? null } : null;
}

export function primaryAgent(office: string, agents: Agent[]): DisplayFields['primaryAgent'] {
  const agent = agents.find((a) => a.name || a.email);
  if (!agent) return null;
  return { id: agentId(office, agent), name: agent.name, email: agent.email, phones: agent.phones ?? [] };
}

/** The display fields of a listing in its public form. */
export function displayFields(listing: CanonicalListing): DisplayFields {
  return {
    displayPrice: displayPrice(listing),
    addressLine: addressLine(listing.address),
    heroImage: heroImage(listing.media ?? []),
    primaryAgent: primaryAgent(listing.office, listing.agents ?? []),
  };
}
