import emailAddresses from 'email-addresses';
import type { ListingIssues } from './issues.js';

/**
 * One mailbox (local@domain) from text that should hold exactly one: parsed as RFC 5322 by a
 * well-kept parser, internationalised addresses allowed (RFC 6532). A display name is dropped. null
 * for anything else: no address, several (`a@x, b@y`), a group, or text with line breaks (the way
 * a header would be smuggled in: `agent@x\r\nBcc: other@y`).
 */
export function singleMailbox(raw: string): string | null {
  const text = raw.trim();
  if (text === '' || /[\r\n]/.test(text)) return null;
  const parsed = emailAddresses.parseOneAddress({ input: text, rfc6532: true });
  if (parsed?.type !== 'mailbox') return null;
  const { address, domain } = parsed as emailAddresses.ParsedMailbox;
  // A domain needs a dot to be reachable on the internet (a bare host name only reaches a local network).
  return domain.includes('.') && !domain.startsWith('[') ? address : null;
}

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
