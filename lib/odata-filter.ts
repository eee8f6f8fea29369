import { HttpError } from './errors.js';

/**
 * The OData `$filter` expressions the RESO surface runs, parsed into a tree: comparisons (eq, ne,
 * gt, ge, lt, le), `in`, `has`, and, or, not and parentheses over field names, literals
 * (strings, numbers, true/false, null, dates, timestamps, enumeration members) and the functions
 * of FUNCTIONS. Pure; a query it
 * cannot read throws ODataSyntaxError naming the position and what it found there.
 *
 * Written here rather than taken from npm: the OData parsers published there either lack `in`,
 * `has`, `not` or ISO date literals, or read a dialect of their own (docs/reso.md, The query parser).
 */

/** A query option the service cannot read: a 400 naming the option (its target) and the part. */
export class ODataSyntaxError extends HttpError {
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(400, `${option}: ${message}`);
  }
}

export type Literal =
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'null' }
  | { kind: 'date'; value: string }
  | { kind: 'timestamp'; value: string }
  /** `Namespace.Type'Member'`: the type as written (qualified), the member. */
  | { kind: 'enum'; type: string; value: string };

export type Operand =
  | { kind: 'field'; name: string; at: number }
  | { kind: 'literal'; literal: Literal; at: number }
  /** A function call (`contains(City,'Rich')`, `now()`); its name is one of FUNCTIONS. */
  | { kind: 'call'; name: FunctionName; args: Operand[]; at: number };

/** The functions `$filter` takes, with how many arguments each (docs/reso.md, Queries). */
export const FUNCTIONS = {
  now: 0,
  contains: 2,
  startswith: 2,
  endswith: 2,
  tolower: 1,
  toupper: 1,
  year: 1,
  month: 1,
  day: 1,
  date: 1,
} as const;
export type FunctionName = keyof typeof FUNCTIONS;

export type Comparison = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';

export type FilterExpr =
  | { kind: 'and' | 'or'; left: FilterExpr; right: FilterExpr }
  | { kind: 'not'; expr: FilterExpr }
  | { kind: 'compare'; op: Comparison; left: Operand; right: Operand }
  | { kind: 'in'; left: Operand; values: Operand[] }
  | { kind: 'has'; left: Operand; right: Operand }
  /** A bare boolean field or literal (`NewConstructionYN`). */
  | { kind: 'value'; operand: Operand };

type Token = { t: 'open' | 'close' | 'comma'; at: number } | { t: 'word'; text: string; at: number } | { t: 'literal'; literal: Literal; at: number };

const COMPARISONS = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);
const DATE = /^\d{4}-\d{2}-\d{2}/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,12})?)?(Z|[+-]\d{2}:\d{2})/;
const NUMBER = /^-?(\d+(\.\d+)?([eE][+-]?\d+)?|INF|NaN)/;
const WORD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*/;

/** The longest expression read; longer ones are refused before they are parsed. */
export const MAX_FILTER_LENGTH = 8000;
/** How deep parentheses and `not` may nest. */
const MAX_DEPTH = 50;

function tokenize(text: string, option: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const fail = (what: string): never => {
    throw new ODataSyntaxError(option, `${what} at position ${i + 1} ("${text.slice(i, i + 20)}")`);
  };
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t') {
      i += 1;
      continue;
    }
    if (c === '(' || c === ')' || c === ',') {
      tokens.push({ t: c === '(' ? 'open' : c === ')' ? 'close' : 'comma', at: i });
      i += 1;
      continue;
    }
    const rest = text.slice(i);
    if (c === "'") {
      let value = '';
      let j = i + 1;
      for (;;) {
        if (j >= text.length) fail('a string that is never closed');
        if (text[j] === "'") {
          if (text[j + 1] === "'") {
            value += "'";
            j += 2;
            continue;
          }
          break;
        }
        value += text[j];
        j += 1;
      }
      tokens.push({ t: 'literal', literal: { kind: 'string', value }, at: i });
      i = j + 1;
      continue;
    }
    const timestamp = TIMESTAMP.exec(rest);
    if (timestamp) {
      tokens.push({ t: 'literal', literal: { kind: 'timestamp', value: timestamp[0] }, at: i });
      i += timestamp[0].length;
      continue;
    }
    const date = DATE.exec(rest);
    if (date) {
      tokens.push({ t: 'literal', literal: { kind: 'date', value: date[0] }, at: i });
      i += date[0].length;
      continue;
    }
    const number = NUMBER.exec(rest);
    if (number && (c !== 'I' && c !== 'N' ? true : !/[A-Za-z0-9_]/.test(rest[number[0].length] ?? ''))) {
      tokens.push({ t: 'literal', literal: { kind: 'number', value: number[0] }, at: i });
      i += number[0].length;
      continue;
    }
    const word = WORD.exec(rest);
    if (word) {
      const after = i + word[0].length;
      if (text[after] === "'") {
        // An enumeration member: Namespace.Type'Member'.
        const end = text.indexOf("'", after + 1);
        if (end < 0) fail('an enumeration value that is never closed');
        tokens.push({ t: 'literal', literal: { kind: 'enum', type: word[0], value: text.slice(after + 1, end) }, at: i });
        i = end + 1;
        continue;
      }
      const lower = word[0];
      if (lower === 'true' || lower === 'false') tokens.push({ t: 'literal', literal: { kind: 'boolean', value: lower === 'true' }, at: i });
      else if (lower === 'null') tokens.push({ t: 'literal', literal: { kind: 'null' }, at: i });
      else tokens.push({ t: 'word', text: word[0], at: i });
      i = after;
      continue;
    }
    fail('an unexpected character');
  }
  return tokens;
}

/** Parses a `$filter` value (already percent-decoded). */
export function parseFilter(text: string, option = '$filter'): FilterExpr {
  if (text.length > MAX_FILTER_LENGTH) throw new ODataSyntaxError(option, `longer than ${MAX_FILTER_LENGTH} characters`);
  const tokens = tokenize(text, option);
  if (tokens.length === 0) throw new ODataSyntaxError(option, 'is empty');
  return new FilterParser(tokens, option).expression();
}

/** A recursive-descent reader of the tokens: or of ands of primaries (not, parentheses, a comparison, has, in, or a lone value). */
class FilterParser {
  private pos = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly option: string,
  ) {}

  /** The whole expression; every token must be part of it. */
  expression(): FilterExpr {
    const expr = this.or(0);
    if (this.pos < this.tokens.length) this.fail('"and", "or" or the end of the expression');
    return expr;
  }

  private peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  /** Steps over the next token when it is a word (and, or, not, has, in). */
  private takeWord(word: string): boolean {
    const token = this.peek();
    if (token?.t !== 'word' || token.text !== word) return false;
    this.pos += 1;
    return true;
  }

  /** Steps over the next token, which must be of kind t (else fails, expecting what `expected` says). */
  private expect(t: Token['t'], expected: string): void {
    if (this.peek()?.t !== t) this.fail(expected);
    this.pos += 1;
  }

  private fail(expected: string): never {
    const token = this.peek();
    const found = !token
      ? 'the end of the expression'
      : `${token.t === 'word' ? `"${token.text}"` : token.t === 'literal' ? 'a value' : `"${token.t === 'open' ? '(' : token.t === 'close' ? ')' : ','}"`} at position ${token.at + 1}`;
    throw new ODataSyntaxError(this.option, `expected ${expected} but found ${found}`);
  }

  private or(depth: number): FilterExpr {
    let left = this.and(depth);
    while (this.takeWord('or')) left = { kind: 'or', left, right: this.and(depth) };
    return left;
  }

  private and(depth: number): FilterExpr {
    let left = this.primary(depth);
    while (this.takeWord('and')) left = { kind: 'and', left, right: this.primary(depth) };
    return left;
  }

  private primary(depth: number): FilterExpr {
    if (depth > MAX_DEPTH) throw new ODataSyntaxError(this.option, `nested more than ${MAX_DEPTH} deep`);
    if (this.takeWord('not')) return { kind: 'not', expr: this.primary(depth + 1) };
    if (this.peek()?.t === 'open') {
      this.pos += 1;
      const inner = this.or(depth + 1);
      this.expect('close', '")"');
      return inner;
    }
    const left = this.operand();
    const next = this.peek();
    if (next?.t === 'word' && COMPARISONS.has(next.text)) {
      this.pos += 1;
      return { kind: 'compare', op: next.text as Comparison, left, right: this.operand() };
    }
    if (this.takeWord('has')) return { kind: 'has', left, right: this.operand() };
    if (this.takeWord('in')) {
      this.expect('open', '"(" and a list of values after in');
      const values = this.operands();
      this.expect('close', '"," or ")" in the list after in');
      return { kind: 'in', left, values };
    }
    return { kind: 'value', operand: left };
  }

  /** One or more operands separated by commas. */
  private operands(): Operand[] {
    const values = [this.operand()];
    while (this.peek()?.t === 'comma') {
      this.pos += 1;
      values.push(this.operand());
    }
    return values;
  }

  private operand(): Operand {
    const token = this.peek();
    if (token?.t === 'word' && !['and', 'or', 'not', ...COMPARISONS, 'in', 'has'].includes(token.text)) {
      this.pos += 1;
      if (this.peek()?.t === 'open') return this.call(token.text, token.at);
      return { kind: 'field', name: token.text, at: token.at };
    }
    if (token?.t === 'literal') {
      this.pos += 1;
      return { kind: 'literal', literal: token.literal, at: token.at };
    }
    return this.fail('a field name or a value');
  }

  /** `name(` read: its arguments to the closing parenthesis, as many as the function takes. */
  private call(name: string, at: number): Operand {
    if (!Object.hasOwn(FUNCTIONS, name))
      throw new ODataSyntaxError(
        this.option,
        `function ${name}() at position ${at + 1} is not supported (the functions served are ${Object.keys(FUNCTIONS).join(', ')})`,
      );
    const wanted = FUNCTIONS[name as FunctionName];
    this.pos += 1;
    const args = this.peek()?.t !== 'close' ? this.operands() : [];
    this.expect('close', `"," or ")" in the arguments of ${name}()`);
    if (args.length !== wanted)
      throw new ODataSyntaxError(
        this.option,
        `${name}() at position ${at + 1} takes ${wanted === 0 ? 'no arguments' : wanted === 1 ? 'one argument' : `${wanted} arguments`}, not ${args.length}`,
      );
    return { kind: 'call', name: name as FunctionName, args, at };
  }
}

export interface OrderItem {
  field: string;
  desc: boolean;
}

/** Parses `$orderby`: comma-separated field names, each perhaps followed by asc or desc. */
export function parseOrderBy(text: string): OrderItem[] {
  return text.split(',').map((part, index) => {
    const words = part.trim().split(/\s+/);
    const [field, direction, ...more] = words;
    if (!field || !WORD.test(field) || more.length || (direction !== undefined && direction !== 'asc' && direction !== 'desc'))
      throw new ODataSyntaxError('$orderby', `item ${index + 1} ("${part.trim()}") is not a field name followed by asc or desc`);
    return { field, desc: direction === 'desc' };
  });
}

/** Parses a comma-separated list of names (`$select`, `$expand`). */
export function parseNames(text: string, option: string): string[] {
  return text.split(',').map((part, index) => {
    const name = part.trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$|^\*$/.test(name)) throw new ODataSyntaxError(option, `item ${index + 1} ("${name}") is not a name`);
    return name;
  });
}
