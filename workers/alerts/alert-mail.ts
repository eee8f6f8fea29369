import type { AlertListing, AlertMailContent } from '../../db/alert-mails.js';
import type { Config } from '../../lib/config.js';
import { escapeHtml } from '../../lib/html.js';
import type { Mail } from '../../lib/mailer.js';

/**
 * What alert mails say (docs/alerts.md, Mails): pure functions from what the database holds to a
 * mail, so what a subscriber reads is tested without a server.
 */

/** Where the links in alert mails point. */
export interface AlertLinks {
  /** The service's public address (PUBLIC_BASE_URL, else http://localhost:PORT): the confirm, unsubscribe and manage pages. */
  base: string;
  /** A listing's page for the public (ALERT_LISTING_URL with {office}, {uniqueId} and {listingKey} filled in). */
  listing(office: string, uniqueId: string, listingKey: string): string;
}

/**
 * The links of a configuration: the pages at PUBLIC_BASE_URL, else at http://localhost:PORT (never
 * the Host header of a request: no request can make the service mail links elsewhere); a listing at
 * ALERT_LISTING_URL, else the service's own public listing read.
 */
export function alertLinks(config: Pick<Config, 'publicBaseUrl' | 'port' | 'alertListingUrl'>): AlertLinks {
  const base = config.publicBaseUrl ?? `http://localhost:${config.port}`;
  const pattern = config.alertListingUrl ?? `${base}/v1/listings/{office}/{uniqueId}`;
  return {
    base,
    listing: (office, uniqueId, listingKey) =>
      pattern
        .replaceAll('{office}', encodeURIComponent(office))
        .replaceAll('{uniqueId}', encodeURIComponent(uniqueId))
        .replaceAll('{listingKey}', encodeURIComponent(listingKey)),
  };
}

/** The links of a subscription's token. */
export const confirmUrl = (links: AlertLinks, token: string) => `${links.base}/alerts/confirm?token=${encodeURIComponent(token)}`;
export const unsubscribePageUrl = (links: AlertLinks, token: string) => `${links.base}/alerts/unsubscribe?token=${encodeURIComponent(token)}`;
export const oneClickUrl = (links: AlertLinks, token: string) => `${links.base}/v1/alerts/unsubscribe?token=${encodeURIComponent(token)}`;
export const manageUrl = (links: AlertLinks, token: string) => `${links.base}/alerts/manage?token=${encodeURIComponent(token)}`;

const number = (text: string) => {
  const n = Number(text);
  return Number.isFinite(n) ? n.toLocaleString('en') : text;
};
const list = (text: string) => text.split(',').join(', ');

/** A saved search in words, e.g. "Fitzroy; residential; 3 to 4 bedrooms; up to 900,000; for sale". */
export function describeSearch(search: Record<string, string>): string {
  const s = search;
  const parts: string[] = [];
  if (s.q) parts.push(`“${s.q}”`);
  for (const name of ['locality', 'postcode', 'region'] as const) if (s[name]) parts.push(list(s[name]));
  if (s.bbox) parts.push('a map area');
  if (s.near) parts.push(`within ${s.radiusKm ?? '5'} km of a point`);
  if (s.country) parts.push(s.country.toUpperCase());
  if (s.office) parts.push(`office ${s.office}`);
  if (s.category) parts.push(list(s.category));
  if (s.subCategory) parts.push(list(s.subCategory));
  const range = (min: string | undefined, max: string | undefined, unit: string, format = number) =>
    min && max ? `${format(min)} to ${format(max)}${unit}` : min ? `${format(min)}+${unit}` : max ? `up to ${format(max)}${unit}` : null;
  for (const part of [
    range(s.minBedrooms, s.maxBedrooms, ' bedrooms'),
    range(s.minBathrooms, undefined, ' bathrooms'),
    range(s.minCarSpaces, undefined, ' car spaces'),
    // Rents are searched by the week (monthly and yearly rents compared as weekly amounts).
    range(s.minPrice, s.maxPrice, s.saleMode === 'rent' ? ' a week' : ''),
    range(s.minLandArea, s.maxLandArea, ' m² of land'),
  ]) {
    if (part) parts.push(part);
  }
  if (s.saleMode === 'sale') parts.push('for sale');
  if (s.saleMode === 'rent') parts.push('for rent');
  return parts.length ? parts.join('; ') : 'every listing';
}

const REASON_TEXT: Record<string, string> = { new: 'New', price_drop: 'Price drop', back_on_market: 'Back on the market' };

const firstText = (headline: AlertListing['headline']) =>
  typeof headline === 'string' ? headline : headline ? (Object.values(headline).find((v) => typeof v === 'string') ?? null) : null;

const money = (p: NonNullable<AlertListing['previousPrice']>) => {
  try {
    return p.currency
      ? new Intl.NumberFormat('en', { style: 'currency', currency: p.currency, currencyDisplay: 'narrowSymbol', maximumFractionDigits: 0 }).format(p.amount)
      : number(String(p.amount));
  } catch {
    return number(String(p.amount));
  }
};

/** One listing's lines: why, headline, price (as the public sees it), place, photo and link. */
function listingParts(l: AlertListing, links: AlertLinks) {
  const why = l.reasons.map((r) => REASON_TEXT[r] ?? r).join(', ');
  const headline = firstText(l.headline) ?? l.addressLine ?? l.locality ?? 'A listing';
  const was = l.reasons.includes('price_drop') && l.previousPrice ? ` (was ${money(l.previousPrice)})` : '';
  const price = `${l.displayPrice ?? 'Contact agent'}${was}`;
  const place = l.addressLine ?? l.locality ?? '';
  return { why, headline, price, place, url: links.listing(l.office, l.uniqueId, l.listingKey), photo: l.heroImageUrl };
}

/** An alert mail: its listings, the unsubscribe and manage links, and the one-click unsubscribe headers (RFC 8058). */
export function alertMail(content: AlertMailContent, links: AlertLinks, retentionDays: number): Mail {
  const { subscription: sub, listings, total } = content;
  const what = describeSearch(sub.search);
  const subject = `${total} ${total === 1 ? 'listing' : 'listings'} for your alert: ${what}`.slice(0, 200);
  const endsAt = new Date(new Date(sub.confirmedAt).getTime() + retentionDays * 86_400_000).toISOString().slice(0, 10);
  const more = total > listings.length ? total - listings.length : 0;
  const parts = listings.map((l) => listingParts(l, links));
  const unsubscribe = unsubscribePageUrl(links, sub.token);
  const manage = manageUrl(links, sub.token);
  const text = [
    `Listings matching your ${sub.frequency === 'daily' ? 'daily ' : ''}alert: ${what}`,
    '',
    ...parts.flatMap((p) => [
      `${p.why}: ${p.headline}`,
      `  ${p.price}${p.place ? ` · ${p.place}` : ''}`,
      ...(p.photo ? [`  Photo: ${p.photo}`] : []),
      `  ${p.url}`,
      '',
    ]),
    ...(more ? [`And ${more} more.`, ''] : []),
    `This alert runs until ${endsAt}.`,
    `Unsubscribe: ${unsubscribe}`,
    `Your alerts: ${manage}`,
    '',
  ].join('\n');
  const html = `<!doctype html><html><body style="font-family:sans-serif;max-width:640px">
<p>Listings matching your ${sub.frequency === 'daily' ? 'daily ' : ''}alert: <strong>${escapeHtml(what)}</strong></p>
${parts
  .map(
    (p) => `<div style="margin:16px 0;border-top:1px solid #ddd;padding-top:12px">
${p.photo ? `<a href="${escapeHtml(p.url)}"><img src="${escapeHtml(p.photo)}" alt="" width="320" style="max-width:100%"></a>` : ''}
<p style="margin:4px 0;color:#555">${escapeHtml(p.why)}</p>
<p style="margin:4px 0"><a href="${escapeHtml(p.url)}"><strong>${escapeHtml(p.headline)}</strong></a></p>
<p style="margin:4px 0">${escapeHtml(p.price)}${p.place ? ` · ${escapeHtml(p.place)}` : ''}</p>
</div>`,
  )
  .join('\n')}
${more ? `<p>And ${more} more.</p>` : ''}
<p style="color:#555;font-size:small">This alert runs until ${endsAt}. <a href="${escapeHtml(unsubscribe)}">Unsubscribe</a> · <a href="${escapeHtml(manage)}">Your alerts</a></p>
</body></html>`;
  return {
    to: sub.email,
    subject,
    text,
    html,
    headers: { 'List-Unsubscribe': `<${oneClickUrl(links, sub.token)}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}

/** The mail asking an address to confirm a subscription (nothing is sent to it before). */
export function confirmationMail(input: { email: string; token: string; search: Record<string, string>; frequency: string }, links: AlertLinks) {
  const what = describeSearch(input.search);
  const confirm = confirmUrl(links, input.token);
  const often = input.frequency === 'daily' ? 'once a day' : 'as they come up';
  const text = [
    `Someone, hopefully you, asked for listings matching "${what}" to be mailed to this address ${often}.`,
    '',
    `To start, confirm: ${confirm}`,
    '',
    'If it was not you, ignore this mail: nothing more will be sent, and the request is deleted within two days.',
    '',
  ].join('\n');
  const html = `<!doctype html><html><body style="font-family:sans-serif;max-width:640px">
<p>Someone, hopefully you, asked for listings matching <strong>${escapeHtml(what)}</strong> to be mailed to this address ${often}.</p>
<p><a href="${escapeHtml(confirm)}">Confirm the alert</a></p>
<p style="color:#555;font-size:small">If it was not you, ignore this mail: nothing more will be sent, and the request is deleted within two days.</p>
</body></html>`;
  return { to: input.email, subject: `Confirm your listing alert: ${what}`.slice(0, 200), text, html };
}
