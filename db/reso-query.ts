import type { Knex } from 'knex';
import { type FilterExpr, type Literal, ODataSyntaxError, type Operand, type OrderItem } from '../lib/odata-filter.js';
import { ENUM_NAMESPACE, enumMember } from '../lib/reso-enums.js';
import { fieldOf, type ResoField, type ResoResource } from './reso-resources.js';

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
    case 'Edm.Double':
      return 'float8';
    case 'Edm.DateTimeOffset':
      return 'timestamptz';
    case 'Edm.Boolean':
      return 'boolean';
    default:
      return 'text';
  }
}

const typeName = (field: ResoField): string => (field.type.edm === 'enum' ? `an enumeration (${ENUM_NAMESPACE}.${field.type.enum})` : field.type.edm);

/** A timestamp as the answers and skip tokens write it: ISO 8601 in UTC with microseconds (what `::timestamptz` reads back exactly). */
export const isoTimestampSql = (sql: string): string => `to_char((${sql}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** A day that exists (2024-02-30 does not). */
function isRealDate(text: string): boolean {
  const [y, m, d] = text.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** A literal as a binding for the field, or a 400 naming both. */
function bindingFor(field: ResoField, literal: Literal, at: number): string | boolean {
  const refuse = (): never => {
    throw new ODataSyntaxError('$filter', `${field.name} is ${typeName(field)}; the value at position ${at + 1} is not one`);
  };
  switch (field.type.edm) {
    case 'Edm.String':
      return literal.kind === 'string' ? literal.value : refuse();
    case 'Edm.Int64':
      if (literal.kind !== 'number') return refuse();
      if (!/^-?\d{1,18}$/.test(literal.value))
        throw new ODataSyntaxError('$filter', `${literal.value} at position ${at + 1} is not a whole number ${field.name} can hold`);
      return literal.value;
    case 'Edm.Decimal':
    case 'Edm.Int32':
    case 'Edm.Double':
      if (literal.kind !== 'number') return refuse();
      if (!/^-?\d/.test(literal.value)) throw new ODataSyntaxError('$filter', `${literal.value} at position ${at + 1} is not supported; give a number`);
      return literal.value;
    case 'Edm.Date':
      return literal.kind === 'date' && isRealDate(literal.value) ? literal.value : refuse();
    case 'Edm.DateTimeOffset':
      if (literal.kind === 'timestamp' && isRealDate(literal.value) && !Number.isNaN(Date.parse(literal.value))) return literal.value;
      return refuse();
    case 'Edm.Boolean':
      return literal.kind === 'boolean' ? literal.value : refuse();
    case 'enum': {
      const enumName = field.type.enum;
      if (literal.kind === 'enum') {
        const type = literal.type.split('.').pop();
        if (type !== enumName || (literal.type.includes('.') && literal.type !== `${ENUM_NAMESPACE}.${enumName}`))
          throw new ODataSyntaxError('$filter', `${field.name} is of type ${ENUM_NAMESPACE}.${enumName}, not ${literal.type}`);
      } else if (literal.kind !== 'string') return refuse();
      const member = enumMember(enumName, literal.value);
      if (!member) throw new ODataSyntaxError('$filter', `"${literal.value}" is not a member of ${ENUM_NAMESPACE}.${enumName}`);
      return member;
    }
  }
}

function fieldNamed(resource: ResoResource, operand: Operand, option: string): ResoField {
  if (operand.kind !== 'field') throw new ODataSyntaxError(option, `expected a field name at position ${operand.at + 1}`);
  const field = fieldOf(resource, operand.name);
  if (!field) throw new ODataSyntaxError(option, `${resource.name} has no field ${operand.name}`);
  return field;
}

const FLIPPED = { eq: 'eq', ne: 'ne', gt: 'lt', ge: 'le', lt: 'gt', le: 'ge' } as const;
const SQL_OPS = { gt: '>', ge: '>=', lt: '<', le: '<=' } as const;

/**
 * A filter as a WHERE condition, in OData's two-valued logic: a comparison with a missing value is
 * false (gt, ge, lt, le, eq) or true (ne: null is not equal to anything but null), and `not` of it
 * true.
 */
export function filterSql(resource: ResoResource, expr: FilterExpr): Sql {
  const bindings: Knex.RawBinding[] = [];
  const walk = (e: FilterExpr): string => {
    switch (e.kind) {
      case 'and':
      case 'or':
        return `(${walk(e.left)} ${e.kind.toUpperCase()} ${walk(e.right)})`;
      case 'not':
        return `(NOT coalesce(${walk(e.expr)}, false))`;
      case 'value': {
        if (e.operand.kind === 'literal') {
          if (e.operand.literal.kind !== 'boolean') throw new ODataSyntaxError('$filter', `the value at position ${e.operand.at + 1} is not a condition`);
          return e.operand.literal.value ? 'true' : 'false';
        }
        const field = fieldNamed(resource, e.operand, '$filter');
        if (field.type.edm !== 'Edm.Boolean') throw new ODataSyntaxError('$filter', `${field.name} is not a Boolean field; compare it with a value`);
        return `(${field.sql}) IS TRUE`;
      }
      case 'compare': {
        let { left, right, op } = e;
        if (left.kind === 'literal' && right.kind === 'field') {
          [left, right] = [right, left];
          op = FLIPPED[op];
        }
        const field = fieldNamed(resource, left, '$filter');
        if (right.kind !== 'literal')
          throw new ODataSyntaxError('$filter', `compare ${field.name} with a value, not with another field (position ${right.at + 1})`);
        if (right.literal.kind === 'null') {
          if (op === 'eq') return `(${field.sql}) IS NULL`;
          if (op === 'ne') return `(${field.sql}) IS NOT NULL`;
          return 'false';
        }
        bindings.push(bindingFor(field, right.literal, right.at));
        const value = `?::${castOf(field)}`;
        if (op === 'eq') return `(${field.sql}) = ${value}`;
        if (op === 'ne') return `(${field.sql}) IS DISTINCT FROM ${value}`;
        return `(${field.sql}) ${SQL_OPS[op]} ${value}`;
      }
      case 'in': {
        const field = fieldNamed(resource, e.left, '$filter');
        const values = e.values.map((v) => {
          if (v.kind !== 'literal') throw new ODataSyntaxError('$filter', `the list after in holds values only (position ${v.at + 1})`);
          return v;
        });
        const given = values.filter((v) => v.literal.kind !== 'null').map((v) => bindingFor(field, v.literal, v.at));
        const withNull = values.some((v) => v.literal.kind === 'null');
        bindings.push(given as string[]);
        const match = `(${field.sql}) = ANY(?::${castOf(field)}[])`;
        return withNull ? `(${match} OR (${field.sql}) IS NULL)` : match;
      }
      case 'has': {
        const field = fieldNamed(resource, e.left, '$filter');
        if (field.type.edm !== 'enum') throw new ODataSyntaxError('$filter', `has applies to enumerations; ${field.name} is ${typeName(field)}`);
        if (e.right.kind !== 'literal') throw new ODataSyntaxError('$filter', `has takes an enumeration value (position ${e.right.at + 1})`);
        bindings.push(bindingFor(field, e.right.literal, e.right.at));
        return `(${field.sql}) = ?::text`;
      }
    }
  };
  return { sql: walk(expr), bindings };
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
