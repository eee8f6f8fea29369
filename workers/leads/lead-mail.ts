import type { LeadContact } from '../../db/leads.js';
import { escapeHtml } from '../../lib/html.js';
import type { Mail } from '../../lib/mailer.js';
import { addressLine } from '../../pipeline/address-line.js';

const firstText = (map: Record<string, string> | null | undefined) => (map ? (Object.values(map)[0] ?? null) : null);

/** CR, LF and the other line breaks folded to one space. */
const oneLine = (text: string | null | undefined) => (text ? text.replace(/[\r\n\u2028\u2029\v\f]+/g, ' ').trim() : text);

export interface LeadMailInput {
  to: string;
  contact: LeadContact;
  listing: { office: string; uniqueId: string; headline: Record<string, string> | null; address: Record<string, unknown> | null };
}

/** The enquiry as plain text and HTML, reply-to the consumer. Pure. */
export function leadMail(input: LeadMailInput): Mail {
  const { contact, listing } = input;
  const headline = firstText(listing.headline) ?? `Listing ${listing.uniqueId}`;
  const address = addressLine(listing.address);
  const link = `/v1/listings/${encodeURIComponent(listing.office)}/${encodeURIComponent(listing.uniqueId)}`;
  // One-line fields stay on one line: a CR or LF in a name or phone would start a new line of the
  // mail (a forged "From:" or "Listing:" line in the text the agent reads).
  const name = oneLine(contact.name);
  const phone = oneLine(contact.phone);
  const who = name ? `${name} <${contact.email}>` : contact.email;
  const lines = [
    `New enquiry about: ${headline}`,
    address ? `Address: ${address}` : null,
    `Listing: ${listing.office}/${listing.uniqueId} (${link})`,
    '',
    `From: ${who}`,
    phone ? `Phone: ${phone}` : null,
    '',
    contact.message,
    '',
    'Reply to this email to answer the enquirer directly.',
  ].filter((l): l is string => l !== null);
  const html =
    `<p><strong>New enquiry about:</strong> ${escapeHtml(headline)}</p>` +
    (address ? `<p><strong>Address:</strong> ${escapeHtml(address)}</p>` : '') +
    `<p><strong>Listing:</strong> ${escapeHtml(`${listing.office}/${listing.uniqueId}`)} (<a href="${escapeHtml(link)}">${escapeHtml(link)}</a>)</p>` +
    `<p><strong>From:</strong> ${escapeHtml(who)}${phone ? `<br><strong>Phone:</strong> ${escapeHtml(phone)}` : ''}</p>` +
    `<blockquote>${escapeHtml(contact.message).replace(/\r?\n/g, '<br>')}</blockquote>` +
    '<p>Reply to this email to answer the enquirer directly.</p>';
  return { to: input.to, subject: `Enquiry: ${headline}`.slice(0, 200), text: lines.join('\n'), html, replyTo: contact.email };
}
