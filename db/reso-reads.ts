import type { Knex } from 'knex';
import type { FilterExpr, OrderItem } from '../lib/odata-filter.js';
import { changeLogBounds } from './change-log.js';
import { commitHorizon } from './commit-horizon.js';
import { readShares } from './read-shares.js';
import { afterSql, filterSql, isoTimestampSql, type OrderColumn, orderBySql, orderColumns, type Sql } from './reso-query.js';
import { fieldOf, type PropertyExpand, RESOURCES, type ResoField, type ResoResource } from './reso-resources.js';

/** What one collection read asks for (the route has parsed and bounded it). */
export interface ResoQuery {
  filter?: FilterExpr;
  orderby: OrderItem[];
  /** Fields to answer with; all when absent. */
  select?: string[];
  /** Rows in this page (at most the page maximum). */
  limit: number;
  /** Rows passed over before the page (the route bounds it: RESO_MAX_SKIP). */
  skip: number;
  /** The order values of the last row of the previous page (a skip token). */
  after?: (string | null)[];
  count: boolean;
  expand: PropertyExpand[];
}

export interface ResoPage {
  /** Each record as JSON text. */
  records: string[];
  count?: number;
  /** The order values of the page's last row when more rows follow. */
  next: (string | null)[] | null;
}

export interface ResoReads {
  page(resource: ResoResource, query: ResoQuery): Promise<ResoPage>;
  byKey(resource: ResoResource, key: string, select: string[] | undefined, expand: PropertyExpand[]): Promise<string | null>;
  /** Where the change log's complete stretch starts (EntityEvent checkpoints before it are expired) and how long events are kept. */
  eventWindow(): Promise<{ completeFrom: number; windowDays: number }>;
  /** The order columns of a query, for reading a skip token. */
  orderOf(resource: ResoResource, orderby: OrderItem[]): OrderColumn[];
}

/** json_build_object takes at most 100 arguments: 50 fields a call. */
const FIELDS_PER_OBJECT = 50;

/** A field's value as it goes into the answer: timestamps as ISO 8601 in UTC with microseconds. */
const outputSql = (field: ResoField): string => (field.type.edm === 'Edm.DateTimeOffset' ? isoTimestampSql(field.sql) : `(${field.sql})`);

/** How many json_build_object pieces a record of these fields is made of (recordColumns). */
const pieceCount = (fields: ResoField[]): number => Math.max(1, Math.ceil(fields.length / FIELDS_PER_OBJECT));

/** The SELECT list making a record's JSON in pieces (json0, json1, …) for the fields given. */
export function recordColumns(fields: ResoField[]): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < fields.length; i += FIELDS_PER_OBJECT) {
    const args = fields.slice(i, i + FIELDS_PER_OBJECT).map((f) => `'${f.name}', ${outputSql(f)}`);
    pieces.push(`json_build_object(${args.join(', ')})::text AS json${pieces.length}`);
  }
  return pieces;
}

/** The record's JSON from its pieces. */
function recordJson(row: Record<string, unknown>, pieces: number): string {
  if (pieces === 1) return row.json0 as string;
  const inner: string[] = [];
  for (let i = 0; i < pieces; i += 1) {
    const text = row[`json${i}`] as string;
    if (text.length > 2) inner.push(text.slice(1, -1));
  }
  return `{${inner.join(',')}}`;
}

/** Adds `"Name":value` members to a record's JSON text. */
const withMembers = (json: string, members: [string, string][]): string =>
  members.length === 0 ? json : `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;

function selectedFields(resource: ResoResource, select: string[] | undefined): ResoField[] {
  if (!select || select.includes('*')) return resource.fields;
  return select.map((name) => fieldOf(resource, name)!);
}

/**
 * The rows of `condition` that make the page after skipping `skip` of them in `order`: their keys
 * are found first, and only their records are made. The rows passed over cost their order values
 * and key, not a record each (10,000 records built to be thrown away took 0.5 s over 300,000
 * listings).
 */
function pageAfterSkip(resource: ResoResource, condition: Sql, order: string, limit: number, skip: number): Sql {
  const { keySql: key, rowKeySql: rowKey } = resource;
  const keys = `SELECT ${key} AS _k${rowKey ? `, ${rowKey} AS _r` : ''} FROM ${resource.from} WHERE ${condition.sql} ${order} LIMIT ? OFFSET ?`;
  const onPage = rowKey ? `(${rowKey}, ${key}) IN (SELECT _r, _k FROM (${keys}) page)` : `${key} IN (SELECT _k FROM (${keys}) page)`;
  return { sql: `${condition.sql} AND ${onPage}`, bindings: [...condition.bindings, ...condition.bindings, limit, skip] };
}

/** The records a collection read may return: visible, matching the filter, stamped before the commit horizon. */
function whereSql(resource: ResoResource, filter: FilterExpr | undefined, horizon: string | null): Sql {
  const parts = [`(${resource.visible})`];
  const bindings: Knex.RawBinding[] = [];
  if (filter) {
    const f = filterSql(resource, filter);
    parts.push(f.sql);
    bindings.push(...f.bindings);
  }
  // Whatever the order: a record stamped after the commit horizon is left out until every write
  // stamped before it has committed, so $orderby never changes which records match.
  const timestamp = fieldOf(resource, 'ModificationTimestamp');
  if (timestamp && horizon) {
    parts.push(`(${timestamp.sql}) < ?::timestamptz`);
    bindings.push(horizon);
  }
  return { sql: parts.join(' AND '), bindings };
}

/** JSON members by listing key, as expansions add them to the Property records. */
type Members = Map<string, [string, string][]>;

/** A collection of each listing's records of `resource`, in `order`, as the member `name` (Media, OpenHouse). */
async function expandCollection(
  db: Knex,
  byKey: Members,
  name: 'Media' | 'OpenHouse',
  resource: ResoResource,
  listingKey: string,
  order: string,
): Promise<void> {
  const { rows: found } = await db.raw(
    `SELECT ${listingKey} AS _key, ${recordColumns(resource.fields).join(', ')} FROM ${resource.from}
      WHERE ${resource.visible} AND ${listingKey} = ANY(?::text[]) ORDER BY ${listingKey}, ${order}`,
    [[...byKey.keys()]],
  );
  const lists = new Map<string, string[]>();
  for (const row of found as Record<string, unknown>[]) {
    const list = lists.get(row._key as string) ?? [];
    list.push(recordJson(row, 1));
    lists.set(row._key as string, list);
  }
  for (const [key, members] of byKey) members.push([name, `[${(lists.get(key) ?? []).join(',')}]`]);
}

/** The one record of `resource` each row links to (its `link` column), as the member `name` (ListAgent, ListOffice); null when none. */
async function expandRelated(
  db: Knex,
  rows: Record<string, unknown>[],
  byKey: Members,
  name: 'ListAgent' | 'ListOffice',
  resource: ResoResource,
  link: string,
) {
  const wanted = [...new Set(rows.map((r) => r[link]).filter((v): v is string => typeof v === 'string'))];
  const { rows: found } = await db.raw(
    `SELECT ${resource.keySql} AS _key, ${recordColumns(resource.fields).join(', ')} FROM ${resource.from} WHERE ${resource.keySql} = ANY(?::text[])`,
    [wanted],
  );
  const records = new Map((found as Record<string, unknown>[]).map((r) => [r._key as string, recordJson(r, 1)]));
  for (const row of rows) byKey.get(row._key as string)!.push([name, records.get(row[link] as string) ?? 'null']);
}

/** Expanded Media, list agent, list office and open houses of the Property rows given, as JSON members by listing key (in PROPERTY_EXPANDS' order). */
async function expansions(db: Knex, rows: Record<string, unknown>[], expand: PropertyExpand[]): Promise<Members> {
  const byKey: Members = new Map(rows.map((r) => [r._key as string, []]));
  if (expand.includes('Media')) await expandCollection(db, byKey, 'Media', RESOURCES.Media, 'l.listing_key', "(m.item->>'order')::int");
  if (expand.includes('ListAgent')) await expandRelated(db, rows, byKey, 'ListAgent', RESOURCES.Member, '_agent');
  if (expand.includes('ListOffice')) await expandRelated(db, rows, byKey, 'ListOffice', RESOURCES.Office, '_office');
  if (expand.includes('OpenHouse')) await expandCollection(db, byKey, 'OpenHouse', RESOURCES.OpenHouse, 'e.listing_key', 'e.starts_at, e.seq');
  return byKey;
}

/** The rows of `condition` with the fields' record columns, the key (and a Property's links), `extra` columns, then `tail` (order, limit). */
async function readRows(db: Knex, resource: ResoResource, fields: ResoField[], condition: Sql, extra: string[], tail: string, tailBindings: Knex.RawBinding[]) {
  const links = resource.name === 'Property' ? [`${fieldOf(resource, 'ListAgentKey')!.sql} AS _agent`, 'office AS _office'] : [];
  const columns = [...recordColumns(fields), `${resource.keySql} AS _key`, ...links, ...extra];
  const { rows } = await db.raw(`SELECT ${columns.join(', ')} FROM ${resource.from} WHERE ${condition.sql} ${tail}`, [...condition.bindings, ...tailBindings]);
  return rows as Record<string, unknown>[];
}

/** The rows' records as JSON, with a Property's expansions. */
async function finish(db: Knex, resource: ResoResource, rows: Record<string, unknown>[], pieces: number, expand: PropertyExpand[]): Promise<string[]> {
  const members = resource.name === 'Property' && expand.length ? await expansions(db, rows, expand) : null;
  return rows.map((row) => {
    const json = recordJson(row, pieces);
    return members ? withMembers(json, members.get(row._key as string) ?? []) : json;
  });
}

/**
 * Reads of the RESO resources (docs/reso.md). A collection read keeps to records stamped before
 * the commit horizon (db/commit-horizon.ts): a write still committing then cannot land behind a
 * page already read, so replication by ModificationTimestamp never skips a record, and the set
 * read does not depend on the order asked for.
 */
export function createResoReads(db: Knex, options: { changeLogDays: number }): ResoReads {
  const shares = readShares(db);
  return {
    orderOf: (resource, orderby) => orderColumns(resource, orderby),

    async eventWindow() {
      const { completeFrom } = await changeLogBounds(db);
      return { completeFrom, windowDays: options.changeLogDays };
    },

    async page(resource, query) {
      const fields = selectedFields(resource, query.select);
      const columns = orderColumns(resource, query.orderby);
      // The horizon is read before the page's own statement (and so before its snapshot).
      const horizon = fieldOf(resource, 'ModificationTimestamp') ? await commitHorizon(db) : null;
      const base = whereSql(resource, query.filter, horizon);
      const condition = { ...base };
      if (query.after) {
        const after = afterSql(columns, query.after);
        condition.sql = `${base.sql} AND ${after.sql}`;
        condition.bindings = [...base.bindings, ...after.bindings];
      }
      const orderText = columns.map((c, i) => `${c.text} AS _o${i}`);
      // A client's own filter and order: the RESO family's share of the read pool (db/read-shares.ts).
      const order = `ORDER BY ${orderBySql(columns)}`;
      const [rows, count] = await Promise.all([
        shares.run('reso', () =>
          query.skip > 0
            ? readRows(db, resource, fields, pageAfterSkip(resource, condition, order, query.limit + 1, query.skip), orderText, order, [])
            : readRows(db, resource, fields, condition, orderText, `${order} LIMIT ?`, [query.limit + 1]),
        ),
        query.count
          ? shares.run('reso', () =>
              db.raw(`SELECT count(*)::int AS n FROM ${resource.from} WHERE ${base.sql}`, base.bindings).then((r: { rows: { n: number }[] }) => r.rows[0].n),
            )
          : undefined,
      ]);
      const more = rows.length > query.limit;
      const shown = more ? rows.slice(0, query.limit) : rows;
      const last = shown.at(-1);
      return {
        records: await finish(db, resource, shown, pieceCount(fields), query.expand),
        ...(count !== undefined ? { count } : {}),
        next: more && last ? columns.map((_c, i) => (last[`_o${i}`] as string | null) ?? null) : null,
      };
    },

    async byKey(resource, key, select, expand) {
      const fields = selectedFields(resource, select);
      const rows = await readRows(db, resource, fields, { sql: `(${resource.visible}) AND ${resource.keySql} = ?`, bindings: [key] }, [], 'LIMIT 1', []);
      if (rows.length === 0) return null;
      return (await finish(db, resource, rows, pieceCount(fields), expand))[0];
    },
  };
}
