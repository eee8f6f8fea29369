import emailAddresses from 'email-addresses';
import type { ListingIssues } from './issues.js';

// RFC 5322 atext: the characters a dot-atom may hold (the hyphen last, so it stands for itself).
const ATEXT_CHARS = "A-Za-z0-9!#$%&'*+/=?^_`{|}~-";
const ATEXT = `[${ATEXT_CHARS}]+`;
/**
 * The shape nearly every feed's address has: an ASCII dot-atom local part and a dotted domain of
 * letters, digits and hyphens. Every such text is one mailbox whose address is the text itself, so it
 * needs no parse (the full parser builds a syntax tree per address and was over a third of a dry
 * run's time).
 */
const PLAIN_ADDRESS = new RegExp(`^${ATEXT}(?:\\.${ATEXT})*@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)+$`);

/**
 * One mailbox (local@domain) from text that should hold exactly one: parsed as RFC 5322 by a
 * well-kept parser, internationalised addresses allowed (RFC 6532). A display name is dropped. null
 * for anything else: no address, several (`a@x, b@y`), a group, or text with line breaks (the way
 * a header would be smuggled in: `agent@x\r\nBcc: other@y`).
 */
export function singleMailbox(raw: string): string | null {
  const text = raw.trim();
  if (text === '' || /[\r\n]/.test(text)) return null;
  return PLAIN_ADDRESS.test(text) ? text : parsedMailbox(text);
}

/** singleMailbox by the full RFC 5322 parser alone, for text without line breaks. */
export function parsedMailbox(text: string): string | null {
  const parsed = emailAddresses.parseOneAddress({ input: text, rfc6532: true });
  if (parsed?.type !== 'mailbox') return null;
  const { local, domain } = parsed as emailAddresses.ParsedMailbox;
  // A domain needs a dot to be reachable on the internet (a bare host name only reaches a local network).
  if (!domain.includes('.') || domain.startsWith('[')) return null;
  // The parser gives a quoted local part unquoted ("john doe" as john doe), which is no address:
  // one that is not a dot-atom is quoted again, its quotes and backslashes escaped.
  return `${DOT_ATOM_LOCAL.test(local) ? local : `"${local.replace(/["\\]/g, '\\$&')}"`}@${domain}`;
}

/** A local part that needs no quotes: RFC 5322 dot-atom, with the UTF-8 characters RFC 6532 adds. */
const UTF8_ATEXT = `[\\u{80}-\\u{10FFFF}${ATEXT_CHARS}]+`;
const DOT_ATOM_LOCAL = new RegExp(`^${UTF8_ATEXT}(?:\\.${UTF8_ATEXT})*$`, 'u');

/**
 * An agent's email as a feed gives it (null when absent): kept when it is one address, else
 * warned about (`invalid_email`, naming the field) and dropped, so a lead goes to exactly one recipient.
 */
export function agentEmail(raw: string | null, field: string, issues: ListingIssues, path: string): string | null {
  if (raw === null) return null;
  const email = singleMailbox(raw);
  if (!email) issues.warning('invalid_email', `${field} ${JSON.stringify(raw.slice(0, 200))} is not one email address; dropped`, path);
  return email;
}
