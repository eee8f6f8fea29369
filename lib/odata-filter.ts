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
  let pos = 0;
  const peek = () => tokens[pos];
  const describe = (token: Token | undefined) =>
    !token
      ? 'the end of the expression'
      : `${token.t === 'word' ? `"${token.text}"` : token.t === 'literal' ? 'a value' : `"${token.t === 'open' ? '(' : token.t === 'close' ? ')' : ','}"`} at position ${token.at + 1}`;
  const fail = (expected: string): never => {
    throw new ODataSyntaxError(option, `expected ${expected} but found ${describe(peek())}`);
  };
  const isWord = (token: Token | undefined, word: string): boolean => token?.t === 'word' && token.text === word;

  const operand = (): Operand => {
    const token = peek();
    if (token?.t === 'word' && !['and', 'or', 'not', ...COMPARISONS, 'in', 'has'].includes(token.text)) {
      pos += 1;
      if (peek()?.t === 'open') return call(token.text, token.at);
      return { kind: 'field', name: token.text, at: token.at };
    }
    if (token?.t === 'literal') {
      pos += 1;
      return { kind: 'literal', literal: token.literal, at: token.at };
    }
    return fail('a field name or a value');
  };

  /** `name(` read: its arguments to the closing parenthesis, as many as the function takes. */
  const call = (name: string, at: number): Operand => {
    if (!Object.hasOwn(FUNCTIONS, name))
      throw new ODataSyntaxError(
        option,
        `function ${name}() at position ${at + 1} is not supported (the functions served are ${Object.keys(FUNCTIONS).join(', ')})`,
      );
    const wanted = FUNCTIONS[name as FunctionName];
    pos += 1;
    const args: Operand[] = [];
    if (peek()?.t !== 'close') {
      args.push(operand());
      while (peek()?.t === 'comma') {
        pos += 1;
        args.push(operand());
      }
    }
    if (peek()?.t !== 'close') fail(`"," or ")" in the arguments of ${name}()`);
    pos += 1;
    if (args.length !== wanted)
      throw new ODataSyntaxError(
        option,
        `${name}() at position ${at + 1} takes ${wanted === 0 ? 'no arguments' : wanted === 1 ? 'one argument' : `${wanted} arguments`}, not ${args.length}`,
      );
    return { kind: 'call', name: name as FunctionName, args, at };
  };

  const primary = (depth: number): FilterExpr => {
    if (depth > MAX_DEPTH) throw new ODataSyntaxError(option, `nested more than ${MAX_DEPTH} deep`);
    const token = peek();
    if (isWord(token, 'not')) {
      pos += 1;
      return { kind: 'not', expr: primary(depth + 1) };
    }
    if (token?.t === 'open') {
      pos += 1;
      const inner = or(depth + 1);
      if (peek()?.t !== 'close') fail('")"');
      pos += 1;
      return inner;
    }
    const left = operand();
    const next = peek();
    if (next?.t === 'word' && COMPARISONS.has(next.text)) {
      pos += 1;
      return { kind: 'compare', op: next.text as Comparison, left, right: operand() };
    }
    if (isWord(next, 'has')) {
      pos += 1;
      return { kind: 'has', left, right: operand() };
    }
    if (isWord(next, 'in')) {
      pos += 1;
      if (peek()?.t !== 'open') fail('"(" and a list of values after in');
      pos += 1;
      const values = [operand()];
      while (peek()?.t === 'comma') {
        pos += 1;
        values.push(operand());
      }
      if (peek()?.t !== 'close') fail('"," or ")" in the list after in');
      pos += 1;
      return { kind: 'in', left, values };
    }
    return { kind: 'value', operand: left };
  };

  const and = (depth: number): FilterExpr => {
    let left = primary(depth);
    while (isWord(peek(), 'and')) {
      pos += 1;
      left = { kind: 'and', left, right: primary(depth) };
    }
    return left;
  };

  const or = (depth: number): FilterExpr => {
    let left = and(depth);
    while (isWord(peek(), 'or')) {
      pos += 1;
      left = { kind: 'or', left, right: and(depth) };
    }
    return left;
  };

  if (tokens.length === 0) throw new ODataSyntaxError(option, 'is empty');
  const expr = or(0);
  if (pos < tokens.length) fail('"and", "or" or the end of the expression');
  return expr;
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
