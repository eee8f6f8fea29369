import { FeedSyntaxError } from './feed-syntax-error.js';

/** Encoding named in the XML declaration, if any (looked for in the first bytes only). */
function declaredEncoding(head: Buffer): string | null {
  const text = head.subarray(0, 200).toString('latin1');
  const m = /^(?:\uFEFF|\xEF\xBB\xBF)?\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(text);
  return m ? m[1].toLowerCase() : null;
}

/**
 * Turns a byte stream into text for the parser: UTF-8 unless the XML declaration names another
 * encoding (ISO-8859-1 and Windows-1252 exports are common). A UTF-8 byte-order mark is dropped.
 */
export async function* decodeXmlBytes(bytes: AsyncIterable<Buffer | string> | Iterable<Buffer | string>): AsyncGenerator<string> {
  let decoder: TextDecoder | null = null;
  for await (const chunk of bytes) {
    if (typeof chunk === 'string') {
      yield chunk;
      continue;
    }
    if (!decoder) {
      const label = declaredEncoding(chunk) ?? 'utf-8';
      try {
        decoder = new TextDecoder(label === 'utf8' ? 'utf-8' : label);
      } catch {
        throw new FeedSyntaxError(`the XML declaration names an unsupported encoding "${label}"`, 1, 1);
      }
    }
    const text = decoder.decode(chunk, { stream: true });
    if (text) yield text;
  }
  if (decoder) {
    const rest = decoder.decode();
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
