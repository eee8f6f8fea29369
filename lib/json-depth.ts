import { CHAR } from './char-codes.js';

/**
 * The deepest nesting of arrays and objects a JSON text the service reads may have: every JSON
 * request body, and every RESO and project feed document (posted, dropped over SFTP or read by a
 * worker). Real documents nest a few levels; checking the text before it is parsed means nothing
 * that walks a parsed value recursively can be made to exhaust the stack (docs/security.md).
 */
export const MAX_JSON_DEPTH = 64;

const { NEWLINE, DOUBLE_QUOTE: QUOTE, BACKSLASH, OPEN_BRACE, OPEN_BRACKET, CLOSE_BRACE, CLOSE_BRACKET } = CHAR;

/**
 * Follows the nesting of a JSON text given in pieces (UTF-8 bytes or characters; the structural
 * characters are ASCII, so either reads the same), outside strings. No recursion and no parse:
 * one pass, so no text, however deep, can exhaust the stack. Once too deep it stays so, and says
 * where the first bracket past the limit was (line and column counted in the units fed; line
 * breaks inside strings, which JSON does not allow, are not counted).
 */
export class JsonDepthGauge {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Units read before the current piece, and where the current line starts (in the same count). */
  private seen = 0;
  private lineStart = 0;
  private lines = 1;
  /** Where the first opening bracket past the limit is (1-based), once there is one. */
  at: { line: number; column: number } | null = null;

  constructor(readonly max = MAX_JSON_DEPTH) {}

  /** Reads one more piece; true once the text has nested deeper than max. */
  feed(piece: Uint8Array | string): boolean {
    if (this.at) return true;
    const text = typeof piece === 'string' ? piece : null;
    const bytes = text === null ? (piece as Uint8Array) : null;
    const codeAt = (i: number) => (text !== null ? text.charCodeAt(i) : bytes![i]);
    const length = piece.length;
    let i = 0;
    while (i < length) {
      if (this.inString) {
        // Strings are most of a document: jump to the next quote, then see whether it is escaped.
        if (this.escaped) {
          this.escaped = false;
          i += 1;
          continue;
        }
        const quote = text !== null ? text.indexOf('"', i) : bytes!.indexOf(QUOTE, i);
        let backslashes = 0;
        for (let b = (quote === -1 ? length : quote) - 1; b >= i && codeAt(b) === BACKSLASH; b -= 1) backslashes += 1;
        if (quote === -1) {
          this.escaped = backslashes % 2 === 1;
          break;
        }
        if (backslashes % 2 === 0) this.inString = false;
        i = quote + 1;
        continue;
      }
      const c = codeAt(i);
      if (c === QUOTE) this.inString = true;
      else if (c === NEWLINE) {
        this.lines += 1;
        this.lineStart = this.seen + i + 1;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        this.depth += 1;
        if (this.depth > this.max) {
          this.at = { line: this.lines, column: this.seen + i - this.lineStart + 1 };
          return true;
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) this.depth -= 1;
      i += 1;
    }
    this.seen += length;
    return false;
  }
}

/** Whether a JSON text nests arrays and objects deeper than max (one pass over it, see JsonDepthGauge). */
export function jsonDeeperThan(text: Uint8Array | string, max = MAX_JSON_DEPTH): boolean {
  return new JsonDepthGauge(max).feed(text);
}

/** The rule, as every refusal states it: what (a "request body", "the RESO document") nests too deep. */
export const tooDeepMessage = (what: string) => `${what} nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep, the limit`;
