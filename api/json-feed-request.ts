import { getManyValues, isMany, none } from 'stream-chain/defs.js';
import { jsonParser } from 'stream-json/core/parser.js';
import { badRequest, payloadTooLarge } from '../lib/errors.js';
import { MAX_JSON_DEPTH } from '../lib/json-depth.js';
import { decodeUtf8 } from '../pipeline/decode.js';
import { tooDeep } from './middleware/json-body.js';
import { type SpooledBody, spoolBody } from './spool-body.js';

/** Characters every member of a JSON feed request but `xml` may hold in all (names, strings, numbers). */
export const MAX_FEED_REQUEST_FIELD_CHARS = 64 * 1024;

/** Stands in for the streamed `xml` string in the assembled request, so its schema still checks type and emptiness. */
const STREAMED = 'streamed';

type Token = { name: string; value?: unknown };
type Container = { value: Record<string, unknown> | unknown[]; key: string | null };

/**
 * Builds a JSON value from the tokenizer's tokens, every string and number arriving in pieces,
 * within a budget of characters and of nesting depth; the top-level member `xml`, when a string,
 * is not kept but handed out piece by piece (take() returns its text of that batch of tokens).
 */
class FeedRequestAssembler {
  private readonly stack: Container[] = [];
  private root: unknown;
  private done = false;
  private text: string[] = [];
  private reading: 'key' | 'string' | 'number' | 'xml' | null = null;
  private chars = 0;
  xmlSeen = false;
  private xmlEmpty = true;

  get result(): unknown {
    if (!this.done) throw badRequest('request body is not valid JSON: it ends before the value is complete');
    return this.root;
  }

  /** The xml text in this batch of tokens ('' when none). */
  take(tokens: Token[]): string {
    let xml = '';
    for (const token of tokens) {
      if (token.name === 'stringChunk' && this.reading === 'xml') {
        xml += token.value as string;
        this.xmlEmpty &&= !xml;
        continue;
      }
      this.token(token);
    }
    return xml;
  }

  private spend(n: number) {
    this.chars += n;
    if (this.chars > MAX_FEED_REQUEST_FIELD_CHARS) {
      throw payloadTooLarge(`the members of a JSON feed request other than xml hold more than ${MAX_FEED_REQUEST_FIELD_CHARS} characters in all, the limit`);
    }
  }

  private add(value: unknown) {
    const top = this.stack.at(-1);
    if (!top) {
      this.root = value;
      this.done = true;
    } else if (Array.isArray(top.value)) top.value.push(value);
    else {
      // As JSON.parse does: "__proto__" becomes an own member, never the prototype.
      Object.defineProperty(top.value, top.key as string, { value, enumerable: true, writable: true, configurable: true });
      top.key = null;
    }
  }

  private open(value: Container['value']) {
    if (this.stack.length >= MAX_JSON_DEPTH) throw tooDeep();
    this.stack.push({ value, key: null });
  }

  private token({ name, value }: Token) {
    switch (name) {
      case 'startObject':
        return this.open({});
      case 'startArray':
        return this.open([]);
      case 'endObject':
      case 'endArray':
        return this.add((this.stack.pop() as Container).value);
      case 'startKey':
      case 'startNumber':
        this.reading = name === 'startKey' ? 'key' : 'number';
        this.text = [];
        return;
      case 'startString': {
        const top = this.stack.at(-1);
        const isXml = this.stack.length === 1 && top?.key === 'xml' && !Array.isArray(top.value);
        if (isXml && this.xmlSeen) throw badRequest('body.xml is given more than once');
        this.xmlSeen ||= isXml;
        this.reading = isXml ? 'xml' : 'string';
        this.text = [];
        return;
      }
      case 'stringChunk':
      case 'numberChunk':
        this.spend((value as string).length);
        this.text.push(value as string);
        return;
      case 'endKey':
        (this.stack.at(-1) as Container).key = this.text.join('');
        this.reading = null;
        return;
      case 'endString':
        this.add(this.reading === 'xml' ? (this.xmlEmpty ? '' : STREAMED) : this.text.join(''));
        this.reading = null;
        return;
      case 'endNumber':
        this.add(Number(this.text.join('')));
        this.reading = null;
        return;
      case 'nullValue':
      case 'trueValue':
      case 'falseValue':
        return this.add(value);
    }
  }
}

/** The tokenizer's answer to one call as a list. */
const tokensOf = (out: unknown): Token[] => (out === none || out == null ? [] : isMany(out) ? (getManyValues(out) as Token[]) : [out as Token]);

/** Text as UTF-8 bytes; a high surrogate that ends one piece waits for the low one in the next. */
function utf8Pieces() {
  let held = '';
  return (text: string, last = false): Buffer | null => {
    let s = held + text;
    held = '';
    const end = s.charCodeAt(s.length - 1);
    if (!last && end >= 0xd800 && end <= 0xdbff) {
      held = s.slice(-1);
      s = s.slice(0, -1);
    }
    return s ? Buffer.from(s, 'utf8') : null;
  };
}

/** The xml member's text as UTF-8 bytes, read from the JSON text as it arrives; the rest goes to the assembler. */
async function* xmlBytes(text: AsyncIterable<string>, assembler: FeedRequestAssembler): AsyncGenerator<Buffer> {
  const parse = jsonParser({ packValues: false, streamValues: true });
  const toBytes = utf8Pieces();
  let read = 0;
  const step = (input: string | typeof none) => {
    try {
      return assembler.take(tokensOf(parse(input as string)));
    } catch (err) {
      if ((err as { status?: number }).status) throw err;
      const reason = (err as Error).message.replace(/^Parser (cannot parse input|has expected)?:?\s*/i, '');
      throw badRequest(`request body is not valid JSON: ${reason || (err as Error).message} (within its first ${read} characters)`);
    }
  };
  for await (const piece of text) {
    read += piece.length;
    const bytes = toBytes(step(piece));
    if (bytes) yield bytes;
  }
  if (read === 0) throw badRequest('request body is empty; send a JSON feed request such as {"xml": "<propertyList>…</propertyList>"}');
  const bytes = toBytes(step(none), true);
  if (bytes) yield bytes;
}

export interface JsonFeedRequest {
  /** The request with `xml` standing as a short string ('' when it was empty): for schema checks. */
  fields: unknown;
  /** The `xml` member's text, stored as UTF-8 in a temporary file; the caller removes it. */
  xml: SpooledBody;
}

/**
 * Reads a JSON feed request ({"xml": "...", "mode", "format", "context"}) from its bytes without
 * holding it in memory: the `xml` string is decoded piece by piece (escapes included) into a
 * temporary file as UTF-8, and the other members are assembled within MAX_FEED_REQUEST_FIELD_CHARS
 * characters and MAX_JSON_DEPTH levels. Not valid JSON is a 400; nothing is left on disk on any
 * failure.
 */
export async function readJsonFeedRequest(bytes: AsyncIterable<Buffer>): Promise<JsonFeedRequest> {
  const assembler = new FeedRequestAssembler();
  const xml = await spoolBody(xmlBytes(decodeUtf8(bytes), assembler));
  try {
    const fields = assembler.result;
    return { fields, xml };
  } catch (err) {
    await xml.remove();
    throw err;
  }
}
