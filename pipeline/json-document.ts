import jsonc from 'jsonc-parser';
import { JsonDepthGauge, tooDeepMessage } from '../lib/json-depth.js';
import { FeedSyntaxError } from './feed-syntax-error.js';

/** The whole text of a feed (JSON formats are parsed as one document). */
export async function wholeText(source: string | AsyncIterable<string>): Promise<string> {
  if (typeof source === 'string') return source;
  let text = '';
  for await (const chunk of source) text += chunk;
  return text;
}

const READABLE: Record<string, string> = {
  InvalidSymbol: 'an invalid symbol',
  InvalidNumberFormat: 'an invalid number',
  PropertyNameExpected: 'a property name is expected',
  ValueExpected: 'a value is expected',
  ColonExpected: 'a colon is expected',
  CommaExpected: 'a comma is expected',
  CloseBraceExpected: 'a closing brace is expected',
  CloseBracketExpected: 'a closing bracket is expected',
  EndOfFileExpected: 'the document should end here',
  InvalidCommentToken: 'comments are not JSON',
  UnexpectedEndOfComment: 'comments are not JSON',
  UnexpectedEndOfString: 'a string is not closed',
  UnexpectedEndOfNumber: 'a number is cut short',
  InvalidUnicode: 'an invalid unicode escape',
  InvalidEscapeCharacter: 'an invalid escape character',
  InvalidCharacter: 'an invalid character in a string',
};

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line += 1;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/**
 * Parses a JSON feed document. JSON.parse does the work; when it fails, jsonc-parser finds where,
 * so the 400 names the line and column as it does for XML. A byte-order mark is accepted. A
 * document nested deeper than MAX_JSON_DEPTH is refused (FeedSyntaxError) before it is parsed, so
 * nothing that walks it recursively (the control-character pass, hashing, the schema) can run out
 * of stack on it.
 */
export function parseJsonDocument(raw: string, what: string): unknown {
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  if (text.trim() === '') throw new FeedSyntaxError(`the ${what} document is empty`, 1, 1);
  const depth = new JsonDepthGauge();
  if (depth.feed(text)) throw tooDeepDocument(what, depth);
  try {
    return JSON.parse(text);
  } catch {
    const errors: jsonc.ParseError[] = [];
    jsonc.parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const first = errors[0];
    const offset = first?.offset ?? text.length;
    const { line, column } = lineAndColumn(text, offset);
    const reason = first ? (READABLE[jsonc.printParseErrorCode(first.error)] ?? jsonc.printParseErrorCode(first.error)) : 'it is not valid JSON';
    throw new FeedSyntaxError(`the ${what} document is not valid JSON: ${reason}`, line, column);
  }
}

const tooDeepDocument = (what: string, depth: JsonDepthGauge) => new FeedSyntaxError(tooDeepMessage(`the ${what} document`), depth.at!.line, depth.at!.column);

/** What the readers call each JSON feed format's document in their messages. */
export const JSON_DOCUMENT_NAMES = { reso: 'RESO', project: 'project' } as const;

/**
 * Refuses (FeedSyntaxError) a JSON feed document that nests deeper than MAX_JSON_DEPTH, reading its
 * text once as it comes: for intake, so such a feed is refused before it is stored, with the
 * words and position the reader would give.
 */
export async function assertJsonDocumentDepth(text: AsyncIterable<string>, what: string): Promise<void> {
  const depth = new JsonDepthGauge();
  for await (const piece of text) if (depth.feed(piece)) throw tooDeepDocument(what, depth);
}

/** A JSON Pointer segment (RFC 6901). */
export function pointerSegment(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}
