import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/**
 * Query options (knex's `.options(PREPARE)`) that mark a query to run as a named prepared
 * statement on connections made with `preparedStatements` (createDb): PostgreSQL then parses and
 * analyses its text once per connection instead of on every run, and after five runs planned for
 * their values may keep one generic plan instead of planning each run. Elsewhere (another pool,
 * PGlite) the mark is ignored and the query runs as before.
 *
 * Only for queries whose text is the same for every request of one shape, with every value a
 * client gives passed as a binding (so the number of texts is that of the shapes, not of the
 * requests); whose best plan is the same whatever those values (PostgreSQL plans a prepared
 * statement for its values five times, then may keep one generic plan for every value: see
 * planStable in db/listing-search/plan.ts); and whose result columns do not depend on a table's
 * columns (no `*`), so that a column added by a migration cannot make a prepared statement fail.
 */
export const PREPARE = { prepare: true } as const;

/**
 * knex's option (`.limit(n, LITERAL)`, `.offset(n, LITERAL)`) that writes a LIMIT or OFFSET into
 * the SQL (knex makes it an integer) instead of sending it as a parameter: PostgreSQL plans a
 * LIMIT it cannot see as wanting a tenth of the matches, which for a prepared statement's generic
 * plan turned a 25-entry index read into a scan of the whole table.
 */
export const LITERAL = { skipBinding: true } as const;

/** What a pg connection is, as far as this module needs it. */
interface PgConnection {
  query(config: unknown, ...rest: unknown[]): unknown;
  connection?: { parsedStatements?: Record<string, string> };
}

/**
 * Makes a pg connection run queries marked PREPARE as named prepared statements, keeping at most
 * `max` of them: each is named after its text's hash, and the least recently used is deallocated
 * when a new one would pass `max`, so clients that mint search shapes can make each connection
 * hold `max` statements at most (a few tens of kilobytes of server memory each), never more.
 *
 * The connection must run one query at a time (as knex's pool lends it): the DEALLOCATE of an
 * evicted statement is sent just before the query that evicted it.
 */
export function prepareMarkedQueries(conn: PgConnection, max: number): void {
  const query = conn.query.bind(conn);
  const statements = new LRUCache<string, true>({
    max,
    dispose: (_value, name, reason) => {
      if (reason !== 'evict') return;
      const parsed = conn.connection?.parsedStatements;
      // Not parsed: its Parse failed, and the server holds nothing under the name.
      if (!parsed || parsed[name] === undefined) return;
      delete parsed[name];
      query({ text: `DEALLOCATE ${name}` }, () => undefined);
    },
  });
  conn.query = (config: unknown, ...rest: unknown[]) => {
    const marked = config as { prepare?: boolean; text?: unknown } | null;
    if (marked?.prepare && typeof marked.text === 'string') {
      // sha1 is 40 hex digits, within PostgreSQL's 63-byte names; a name, not a secret.
      const name = `q${hash('sha1', marked.text, 'hex')}`;
      statements.set(name, true);
      return query({ ...marked, name }, ...rest);
    }
    return query(config, ...rest);
  };
}
