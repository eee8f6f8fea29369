import { FeedSyntaxError } from './feed-syntax-error.js';

/** Encoding named in the XML declaration, if any (looked for in the first bytes only). */
function declaredEncoding(head: Buffer): string | null {
  const text = head.subarray(0, 200).toString('latin1');
  const m = /^(?:\uFEFF|\xEF\xBB\xBF)?\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(text);
  return m ? m[1].toLowerCase() : null;
}

/** UTF-16 told by its byte-order mark, or by `<?` / `<` written in two bytes per character. */
export function utf16Label(head: Buffer): string | null {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  if (head[0] === 0x3c && head[1] === 0x00 && head[2] !== 0x00) return 'utf-16le';
  if (head[0] === 0x00 && head[1] === 0x3c) return 'utf-16be';
  return null;
}

/**
 * Turns a byte stream into text for the parser: UTF-16 when a byte-order mark (or the first
 * character's two bytes) says so, else UTF-8 unless the XML declaration names another encoding
 * (ISO-8859-1 and Windows-1252 exports are common). A byte-order mark is dropped. Bytes that are
 * not valid in the encoding become U+FFFD, which the REAXML reader reports as
 * `invalid_utf8_replaced` where it stands.
 */
export async function* decodeXmlBytes(bytes: AsyncIterable<Buffer | string> | Iterable<Buffer | string>): AsyncGenerator<string> {
  let decoder: TextDecoder | null = null;
  /** The first bytes, held until there are enough to tell the encoding. */
  let head: Buffer | null = null;
  const start = (first: Buffer) => {
    const label = utf16Label(first) ?? declaredEncoding(first) ?? 'utf-8';
    try {
      decoder = new TextDecoder(label === 'utf8' ? 'utf-8' : label);
    } catch {
      throw new FeedSyntaxError(`the XML declaration names an unsupported encoding "${label}"`, 1, 1);
    }
  };
  for await (const chunk of bytes) {
    if (typeof chunk === 'string') {
      yield chunk;
      continue;
    }
    let data: Buffer = chunk;
    if (!decoder) {
      head = head ? Buffer.concat([head, chunk]) : chunk;
      if (head.length < 4) continue;
      data = head;
      head = null;
      start(data);
    }
    const text = decoder!.decode(data, { stream: true });
    if (text) yield text;
  }
  if (head) start(head);
  if (decoder) {
    const rest = (decoder as TextDecoder).decode(head ?? undefined);
    if (rest) yield rest;
  }
}

/** Splits a string into chunks so a large JSON-carried feed streams like a raw one. */
export function* chunkString(text: string, size = 64 * 1024): Generator<string> {
  for (let i = 0; i < text.length; i += size) {
    let end = Math.min(i + size, text.length);
    const code = text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff && end < text.length) end += 1; // keep surrogate pairs whole
    yield text.slice(i, end);
    i = end - size;
  }
}

/** UTF-8 bytes as text, piece by piece (a character split between pieces is kept whole); invalid bytes become U+FFFD. */
export async function* decodeUtf8(bytes: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of bytes) {
    const text = decoder.decode(chunk, { stream: true });
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}
