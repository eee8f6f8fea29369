import { utf16Label } from '../decode.js';

/**
 * REAXML roots may carry FTP credentials (`<propertyList username="…" password="…">`): CRMs still
 * send them, and they must never be stored. This rewrites their values in the root start tag to a
 * fixed mask before the body is stored, leaving every other byte as sent.
 */

/** What a credential's value becomes in the stored body. */
export const CREDENTIAL_MASK = '********';

/** The root's attributes that hold credentials. */
export const CREDENTIAL_ATTRIBUTES: ReadonlySet<string> = new Set(['username', 'password']);

/** Past this many bytes without the end of the root start tag the body is stored as it is (nothing to find). */
const HEAD_LIMIT = 64 * 1024;

type Codec = { decode(bytes: Buffer): string; encode(text: string): Buffer };

const latin1: Codec = { decode: (b) => b.toString('latin1'), encode: (t) => Buffer.from(t, 'latin1') };
const utf16le: Codec = { decode: (b) => b.toString('utf16le'), encode: (t) => Buffer.from(t, 'utf16le') };
const utf16be: Codec = {
  decode: (b) =>
    Buffer.from(b.subarray(0, b.length - (b.length % 2)))
      .swap16()
      .toString('utf16le'),
  encode: (t) => Buffer.from(t, 'utf16le').swap16(),
};

/** UTF-16 as the decoder tells it; otherwise latin1, byte-transparent for UTF-8 and the single-byte encodings (the markup is ASCII). */
function codecOf(head: Buffer): Codec {
  const label = utf16Label(head);
  return label === 'utf-16le' ? utf16le : label === 'utf-16be' ? utf16be : latin1;
}

/**
 * Where the root start tag ends (the index after its '>'), skipping the XML declaration,
 * processing instructions, comments and a DOCTYPE; -1 when the text does not reach it yet.
 */
function rootTagSpan(text: string): { start: number; end: number } | null | -1 {
  let i = 0;
  for (;;) {
    while (i < text.length && /[\s\uFEFF]/.test(text[i])) i += 1;
    if (i >= text.length) return -1;
    if (text[i] !== '<') return null; // not XML: nothing to scrub
    if (text.startsWith('<?', i)) {
      const close = text.indexOf('?>', i);
      if (close < 0) return -1;
      i = close + 2;
    } else if (text.startsWith('<!--', i)) {
      const close = text.indexOf('-->', i);
      if (close < 0) return -1;
      i = close + 3;
    } else if (text.startsWith('<!', i)) {
      const bracket = text.indexOf('[', i);
      const gt = text.indexOf('>', i);
      if (gt < 0) return -1;
      if (bracket >= 0 && bracket < gt) {
        const close = text.indexOf(']', bracket);
        if (close < 0) return -1;
        const end = text.indexOf('>', close);
        if (end < 0) return -1;
        i = end + 1;
      } else i = gt + 1;
    } else {
      let quote = '';
      for (let j = i + 1; j < text.length; j += 1) {
        const c = text[j];
        if (quote) {
          if (c === quote) quote = '';
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '>') return { start: i, end: j + 1 };
      }
      return -1;
    }
  }
}

const CREDENTIAL = new RegExp(`(\\s)(${[...CREDENTIAL_ATTRIBUTES].join('|')})(\\s*=\\s*)(["'])([^"']*)\\4`, 'gi');

/** The root start tag with its credential values masked, and how many were there (non-empty). */
export function maskRootCredentials(tag: string): { tag: string; masked: number } {
  let masked = 0;
  const out = tag.replace(CREDENTIAL, (_m, space: string, name: string, eq: string, q: string, value: string) => {
    if (value === '' || value === CREDENTIAL_MASK) return `${space}${name}${eq}${q}${value}${q}`;
    masked += 1;
    return `${space}${name}${eq}${q}${CREDENTIAL_MASK}${q}`;
  });
  return { tag: out, masked };
}

/** The body with the root's credential values masked; every other byte passes through as sent. */
export async function* scrubCredentials(body: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let head: Buffer | null = Buffer.alloc(0);
  for await (const chunk of body) {
    if (head === null) {
      yield chunk;
      continue;
    }
    head = Buffer.concat([head, chunk]);
    const codec = codecOf(head);
    const text = codec.decode(head);
    const span = rootTagSpan(text);
    if (span === -1 && head.length < HEAD_LIMIT) continue;
    if (span === null || span === -1) {
      yield head;
      head = null;
      continue;
    }
    const { tag, masked } = maskRootCredentials(text.slice(span.start, span.end));
    if (masked === 0) yield head;
    else {
      // Re-encode only the text up to the end of the root tag; the rest of the head is passed as it came.
      const prefix = codec.encode(text.slice(0, span.start) + tag);
      const consumed = codec.encode(text.slice(0, span.end)).length;
      yield Buffer.concat([prefix, head.subarray(consumed)]);
    }
    head = null;
  }
  if (head !== null && head.length > 0) yield head;
}
