import emailAddresses from 'email-addresses';

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
