import type { Knex } from 'knex';
import { type FilterExpr, type Literal, ODataSyntaxError, type Operand, type OrderItem } from '../lib/odata-filter.js';
import { FORMER_ENUM_NAMESPACE, METADATA_NAMESPACE, standardLookupValue } from '../lib/reso-lookups.js';
import { type FieldType, fieldOf, type ResoField, type ResoResource } from './reso-resources.js';

/**
 * OData queries over a RESO resource as parameterised SQL (docs/reso.md): the filter, the order
 * and the keyset that pages on after a row. Every value a client sends is a binding; the SQL text
 * is made only of the resource's own field expressions. Pure.
 */

export interface Sql {
  sql: string;
  bindings: Knex.RawBinding[];
}

/** The cast a binding of the field's type is read back with. */
function castOf(field: ResoField): string {
  switch (field.type.edm) {
    case 'Edm.Decimal':
    case 'Edm.Int32':
    case 'Edm.Int64':
      return 'numeric';
    case 'Edm.DateTimeOffset':
      return 'timestamptz';
    case 'Edm.Boolean':
      return 'boolean';
    default:
      return 'text';
  }
}

const typeName = (field: ResoField): string =>
  field.type.edm === 'Edm.String' && field.type.lookup ? `Edm.String (the lookup ${field.type.lookup})` : field.type.edm;

/**
 * A value for a lookup field: the literal as it is, or, when it names a Data Dictionary value in
 * another spelling (its legacy OData value `ActiveUnderContract`, any case, or an enumeration
 * member `org.reso.metadata.StandardStatus'ActiveUnderContract'` as the metadata declared before
 * it listed lookups in the Lookup resource), that value's display name, which the field holds.
 */
function lookupBinding(field: ResoField, lookup: string, literal: Literal, refuse: () => never): string {
  if (literal.kind === 'enum') {
    const type = literal.type.split('.').pop();
    const namespace = literal.type.includes('.') ? literal.type.slice(0, literal.type.lastIndexOf('.')) : null;
    if (type !== lookup || (namespace !== null && namespace !== METADATA_NAMESPACE && namespace !== FORMER_ENUM_NAMESPACE))
      throw new ODataSyntaxError('$filter', `${field.name} holds values of the lookup ${lookup}, not ${literal.type}`);
    const standard = standardLookupValue(lookup, literal.value);
    if (!standard) throw new ODataSyntaxError('$filter', `"${literal.value}" is not a value of the lookup ${lookup} (the Lookup resource lists them)`);
    return standard;
  }
  if (literal.kind !== 'string') return refuse();
  return standardLookupValue(lookup, literal.value) ?? literal.value;
}

/** A timestamp as the answers and skip tokens write it: ISO 8601 in UTC with microseconds (what `::timestamptz` reads back exactly). */
export const isoTimestampSql = (sql: string): string => `to_char((${sql}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** A day that exists (2024-02-30 does not). */
function isRealDate(text: string): boolean {
  const [y, m, d] = text.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/**
 * A number literal the database reads without an error: within a double's range (a larger one is
 * out of range for float8 and overflows numeric's exponent) and, unless it is 0, not so small that
 * it reads as 0 (float8 refuses 1e-400).
 */
function isInRange(text: string): boolean {
  const value = Number(text);
  if (!Number.isFinite(value)) return false;
  return value !== 0 || !/[1-9]/.test(text.replace(/[eE].*$/, ''));
}

/** A literal as a binding for the field, or a 400 naming both. */
function bindingFor(field: ResoField, literal: Literal, at: number): string | boolean {
  const refuse = (): never => {
    throw new ODataSyntaxError('$filter', `${field.name} is ${typeName(field)}; the value at position ${at + 1} is not one`);
  };
  switch (field.type.edm) {
    case 'Edm.String':
      if (field.type.lookup) return lookupBinding(field, field.type.lookup, literal, refuse);
      return literal.kind === 'string' ? literal.value : refuse();
    case 'Edm.Int64':
      if (literal.kind !== 'number') return refuse();
      if (!/^-?\d{1,18}$/.test(literal.value))
        throw new ODataSyntaxError('$filter', `${literal.value} at position ${at + 1} is not a whole number ${field.name} can hold`);
      return literal.value;
    case 'Edm.Decimal':
    case 'Edm.Int32':
      if (literal.kind !== 'number') return refuse();
      if (!/^-?\d/.test(literal.value)) throw new ODataSyntaxError('$filter', `${literal.value} at position ${at + 1} is not supported; give a number`);
      if (!isInRange(literal.value))
        throw new ODataSyntaxError(
          '$filter',
          `${literal.value.length > 30 ? `${literal.value.slice(0, 30)}…` : literal.value} at position ${at + 1} is out of the range a number can have (about ±1.8e308, and not so small it is 0)`,
        );
      return literal.value;
    case 'Edm.Date':
      return literal.kind === 'date' && isRealDate(literal.value) ? literal.value : refuse();
    case 'Edm.DateTimeOffset':
      if (literal.kind === 'timestamp' && isRealDate(literal.value) && !Number.isNaN(Date.parse(literal.value))) return literal.value;
      return refuse();
    case 'Edm.Boolean':
      return literal.kind === 'boolean' ? literal.value : refuse();
  }
}

function fieldNamed(resource: ResoResource, operand: Operand, option: string): ResoField {
  if (operand.kind !== 'field') throw new ODataSyntaxError(option, `expected a field name at position ${operand.at + 1}`);
  const field = fieldOf(resource, operand.name);
  if (!field) throw new ODataSyntaxError(option, `${resource.name} has no field ${operand.name}`);
  return field;
}

/**
 * A field or a function of one, typed as a field is (its name is how a message names it), with
 * the bindings its SQL holds in order; constant when it reads no field (now()).
 */
interface Expr extends ResoField {
  bindings: Knex.RawBinding[];
  constant: boolean;
}

/** `%`, `_` and `\` of a string taken literally in a LIKE pattern (backslash is LIKE's escape). */
const likeText = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

const LIKE_PATTERNS = {
  contains: (text: string) => `%${likeText(text)}%`,
  startswith: (text: string) => `${likeText(text)}%`,
  endswith: (text: string) => `%${likeText(text)}`,
} as const;

/** A field or function call as an expression; a 400 naming the part it cannot type. */
function expressionOf(resource: ResoResource, operand: Operand): Expr {
  if (operand.kind === 'literal') throw new ODataSyntaxError('$filter', `expected a field name or a function at position ${operand.at + 1}`);
  if (operand.kind === 'field') return { ...fieldNamed(resource, operand, '$filter'), bindings: [], constant: false };
  const { name, args, at } = operand;
  const where = `${name}() at position ${at + 1}`;
  const argument = (i: number, ...types: FieldType['edm'][]): Expr => {
    const arg = args[i];
    if (arg.kind === 'literal')
      throw new ODataSyntaxError('$filter', `${where} takes a field${types.includes('Edm.String') ? ' of text' : ''} as its first argument, not a value`);
    const e = expressionOf(resource, arg);
    if (!types.includes(e.type.edm)) throw new ODataSyntaxError('$filter', `${where} applies to ${types.join(' or ')}; ${e.name} is ${typeName(e)}`);
    return e;
  };
  const made = (type: FieldType, sql: string, from: Expr[]): Expr => ({
    name: `${name}(${from.map((e) => e.name).join(',')})`,
    type,
    sql,
    bindings: from.flatMap((e) => e.bindings),
    constant: from.every((e) => e.constant),
  });
  switch (name) {
    case 'now':
      return { name: 'now()', type: { edm: 'Edm.DateTimeOffset' }, sql: 'now()', bindings: [], constant: true };
    case 'tolower':
    case 'toupper': {
      const text = argument(0, 'Edm.String');
      return made({ edm: 'Edm.String' }, `${name === 'tolower' ? 'lower' : 'upper'}(${text.sql})`, [text]);
    }
    case 'year':
    case 'month':
    case 'day': {
      const time = argument(0, 'Edm.Date', 'Edm.DateTimeOffset');
      // A timestamp's parts in UTC, as the answers write it; a date's as it is.
      const value = time.type.edm === 'Edm.Date' ? `(${time.sql})::date` : `(${time.sql}) AT TIME ZONE 'UTC'`;
      return made({ edm: 'Edm.Int32' }, `extract(${name} from ${value})::int`, [time]);
    }
    case 'date': {
      const time = argument(0, 'Edm.Date', 'Edm.DateTimeOffset');
      return time.type.edm === 'Edm.Date' ? time : made({ edm: 'Edm.Date' }, `to_char((${time.sql}) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`, [time]);
    }
    case 'contains':
    case 'startswith':
    case 'endswith': {
      const text = argument(0, 'Edm.String');
      const part = args[1];
      if (part.kind !== 'literal' || part.literal.kind !== 'string')
        throw new ODataSyntaxError('$filter', `${where} takes a string value ('…') as its second argument`);
      const pattern = LIKE_PATTERNS[name](part.literal.value);
      if (args[0].kind === 'field' && text.lowerTrigramIndex) {
        // A field's match implies its lowered match, which a trigram index of the lowered field
        // answers (City: db/migrations/20261128150000_reso_text_indexes.ts); the field's own LIKE
        // then keeps the match case-sensitive, as OData has it.
        const e = made({ edm: 'Edm.Boolean' }, `(lower(${text.sql}) LIKE lower(?) AND (${text.sql}) LIKE ?)`, [text]);
        return { ...e, name: `${name}(${text.name},…)`, bindings: [...text.bindings, pattern, ...text.bindings, pattern] };
      }
      const e = made({ edm: 'Edm.Boolean' }, `(${text.sql}) LIKE ?`, [text]);
      return { ...e, name: `${name}(${text.name},…)`, bindings: [...text.bindings, pattern] };
    }
  }
}

const FLIPPED = { eq: 'eq', ne: 'ne', gt: 'lt', ge: 'le', lt: 'gt', le: 'ge' } as const;
const SQL_OPS = { gt: '>', ge: '>=', lt: '<', le: '<=' } as const;

/**
 * A filter as a WHERE condition, in OData's two-valued logic: a comparison with a missing value is
 * false (gt, ge, lt, le, eq) or true (ne: null is not equal to anything but null), and `not` of it
 * true.
 */
export function filterSql(resource: ResoResource, expr: FilterExpr): Sql {
  const writer = new FilterWriter(resource);
  const sql = writer.walk(expr);
  return { sql, bindings: writer.bindings };
}

type Compare = Extract<FilterExpr, { kind: 'compare' }>;
type LiteralOperand = Extract<Operand, { kind: 'literal' }>;

/** Writes a filter's SQL, its bindings taken in the order their placeholders stand. */
class FilterWriter {
  readonly bindings: Knex.RawBinding[] = [];

  constructor(private readonly resource: ResoResource) {}

  /** An expression's SQL where it stands, its bindings taken in their place. */
  private use(e: Expr): string {
    this.bindings.push(...e.bindings);
    return `(${e.sql})`;
  }

  walk(e: FilterExpr): string {
    switch (e.kind) {
      case 'and':
      case 'or':
        return `(${this.walk(e.left)} ${e.kind.toUpperCase()} ${this.walk(e.right)})`;
      case 'not':
        return `(NOT coalesce(${this.walk(e.expr)}, false))`;
      case 'value':
        return this.value(e.operand);
      case 'compare':
        return this.compare(e);
      case 'in':
        return this.in(e.left, e.values);
      case 'has': {
        // Lookups are strings listed by the Lookup resource (docs/reso.md, Lookups): no field is an enumeration.
        const field = expressionOf(this.resource, e.left);
        throw new ODataSyntaxError('$filter', `has applies to enumerations, and this service has none; ${field.name} is ${typeName(field)}: use eq or in`);
      }
    }
  }

  /** A lone value as a condition: true, false, or a Boolean field or function. */
  private value(operand: Operand): string {
    if (operand.kind === 'literal') {
      if (operand.literal.kind !== 'boolean') throw new ODataSyntaxError('$filter', `the value at position ${operand.at + 1} is not a condition`);
      return operand.literal.value ? 'true' : 'false';
    }
    const value = expressionOf(this.resource, operand);
    if (value.type.edm !== 'Edm.Boolean')
      throw new ODataSyntaxError('$filter', `${value.name} is not a Boolean ${operand.kind === 'field' ? 'field' : 'function'}; compare it with a value`);
    // A function's LIKE stands bare, so an index can answer it: a missing value gives null,
    // which a WHERE drops as it drops false, and `not` reads as false (coalesce above).
    return operand.kind === 'call' ? this.use(value) : `${this.use(value)} IS TRUE`;
  }

  /** A comparison, the field (or function) on the left: with a constant expression, or with a value. */
  private compare(e: Compare): string {
    let { left, right, op } = e;
    if (left.kind === 'literal' && right.kind !== 'literal') {
      [left, right] = [right, left];
      op = FLIPPED[op];
    }
    let field = expressionOf(this.resource, left);
    if (right.kind === 'literal') return this.compareValue(field, left, op, right);
    let other = expressionOf(this.resource, right);
    if (field.constant && !other.constant) {
      [field, other] = [other, field];
      op = FLIPPED[op];
    }
    if (!other.constant) throw new ODataSyntaxError('$filter', `compare ${field.name} with a value, not with another field (position ${right.at + 1})`);
    if (castOf(other) !== castOf(field))
      throw new ODataSyntaxError('$filter', `${field.name} is ${typeName(field)} and ${other.name} is ${typeName(other)}; they do not compare`);
    return this.operator(this.use(field), op, this.use(other));
  }

  private compareValue(field: Expr, left: Operand, op: Compare['op'], right: LiteralOperand): string {
    if (right.literal.kind === 'null') {
      if (op === 'eq') return `${this.use(field)} IS NULL`;
      if (op === 'ne') return `${this.use(field)} IS NOT NULL`;
      return 'false';
    }
    const binding = bindingFor(field, right.literal, right.at);
    if (op === 'eq' && field.lowerTrigramIndex && left.kind === 'field') {
      // As contains: the lowered match, which the trigram index answers, then the exact one.
      const lowered = `lower(${this.use(field)}) = lower(?::text)`;
      this.bindings.push(binding);
      const exact = `${this.use(field)} = ?::text`;
      this.bindings.push(binding);
      return `(${lowered} AND ${exact})`;
    }
    const l = this.use(field);
    this.bindings.push(binding);
    return this.operator(l, op, `?::${castOf(field)}`);
  }

  private operator(l: string, op: Compare['op'], r: string): string {
    if (op === 'eq') return `${l} = ${r}`;
    if (op === 'ne') return `${l} IS DISTINCT FROM ${r}`;
    return `${l} ${SQL_OPS[op]} ${r}`;
  }

  /** `in` a list of values (null among them matches a missing value). */
  private in(left: Operand, list: Operand[]): string {
    const field = expressionOf(this.resource, left);
    const values = list.map((v) => {
      if (v.kind !== 'literal') throw new ODataSyntaxError('$filter', `the list after in holds values only (position ${v.at + 1})`);
      return v;
    });
    const given = values.filter((v) => v.literal.kind !== 'null').map((v) => bindingFor(field, v.literal, v.at));
    const withNull = values.some((v) => v.literal.kind === 'null');
    const sql = this.use(field);
    this.bindings.push(given as string[]);
    const match = `${sql} = ANY(?::${castOf(field)}[])`;
    return withNull ? `(${match} OR ${this.use(field)} IS NULL)` : match;
  }
}

/** One column of the order: its SQL, direction and how its value travels in a skip token. */
export interface OrderColumn {
  sql: string;
  desc: boolean;
  cast: string;
  /** SQL of the value as text, exactly as it is read back with `cast`. */
  text: string;
  notNull: boolean;
}

/** The order asked for, then the key (so that ties never repeat or skip a row). Missing values sort last either way. */
export function orderColumns(resource: ResoResource, items: OrderItem[]): OrderColumn[] {
  const columns: OrderColumn[] = items.map((item) => {
    const field = fieldOf(resource, item.field);
    if (!field) throw new ODataSyntaxError('$orderby', `${resource.name} has no field ${item.field}`);
    const cast = castOf(field);
    const text = cast === 'timestamptz' ? isoTimestampSql(field.sql) : cast === 'float8' ? `(${field.sql})::float8::text` : `(${field.sql})::text`;
    return { sql: `(${field.sql})`, desc: item.desc, cast, text, notNull: field.notNull === true };
  });
  if (!items.some((item) => item.field === resource.key)) {
    const cast = castOf(fieldOf(resource, resource.key)!);
    columns.push({ sql: resource.keySql, desc: false, cast, text: cast === 'text' ? resource.keySql : `(${resource.keySql})::text`, notNull: true });
  }
  return columns;
}

export const orderBySql = (columns: OrderColumn[]): string => columns.map((c) => `${c.sql} ${c.desc ? 'DESC' : 'ASC'} NULLS LAST`).join(', ');

/**
 * The rows after a row whose order values were `after` (null for a missing value), in the order
 * of `columns`: for some column, every earlier column equal and this one beyond it.
 */
export function afterSql(columns: OrderColumn[], after: (string | null)[]): Sql {
  // Columns that are never null, all in one direction: a row comparison, which an index in that
  // order answers as a range (a replication by ModificationTimestamp reads each page from the index).
  if (columns.every((c, i) => c.notNull && c.desc === columns[0].desc && after[i] !== null)) {
    return {
      sql: `(${columns.map((c) => c.sql).join(', ')}) ${columns[0].desc ? '<' : '>'} (${columns.map((c) => `?::${c.cast}`).join(', ')})`,
      bindings: after as string[],
    };
  }
  const bindings: Knex.RawBinding[] = [];
  const equal = (c: OrderColumn, v: string | null) => {
    if (v === null) return `${c.sql} IS NULL`;
    bindings.push(v);
    return `${c.sql} = ?::${c.cast}`;
  };
  const beyond = (c: OrderColumn, v: string | null) => {
    if (v === null) return 'false';
    bindings.push(v);
    return `(${c.sql} ${c.desc ? '<' : '>'} ?::${c.cast} OR ${c.sql} IS NULL)`;
  };
  const terms = columns.map((column, i) => {
    const parts = columns.slice(0, i).map((c, j) => equal(c, after[j]));
    parts.push(beyond(column, after[i]));
    return `(${parts.join(' AND ')})`;
  });
  return { sql: `(${terms.join(' OR ')})`, bindings };
}

/** Whether a value from a skip token can be read back as the column's type without an error. */
export function isTokenValue(column: OrderColumn, value: unknown): value is string | null {
  if (value === null) return true;
  if (typeof value !== 'string' || value.length > 4000) return false;
  switch (column.cast) {
    case 'numeric':
      return /^-?\d{1,30}(\.\d{1,30})?$/.test(value);
    case 'float8':
      return /^-?\d+(\.\d+)?(e[+-]?\d{1,3})?$/.test(value) && Number.isFinite(Number(value));
    case 'timestamptz':
      return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(value) && isRealDate(value) && !Number.isNaN(Date.parse(value));
    case 'boolean':
      return value === 'true' || value === 'false';
    default:
      return !value.includes('\u0000');
  }
}
