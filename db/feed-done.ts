import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import pg from 'pg';
import type { Logger } from '../lib/logger.js';
import type { Db } from './knex.js';
import type * as Row from './rows.js';

/**
 * How a request waiting for its feed learns the feed finished, without polling for it: the
 * database layer announces every feed it finishes or fails (finishFeedEvent, failFeedEvent) on an
 * emitter in this process, and on PostgreSQL also with NOTIFY on the `feed_done` channel, which
 * every web process LISTENs to (startFeedDoneListener) and passes on to its own emitter. In the
 * embedded all-in-one process the worker is in the same process, so the emitter alone carries it.
 * A waiting request (FeedWait) still looks now and then: a notification missed while the listening connection was
 * being re-made costs at most one poll interval.
 */
const done = new EventEmitter();
done.setMaxListeners(0);

export const FEED_DONE_CHANNEL = 'feed_done';

/** How a feed ended, as its announcement may carry it: a waiter answers from it without reading the event. */
export interface FeedEnd {
  status: 'done' | 'failed';
  result: Record<string, unknown> | null;
  error: string | null;
}

/** A NOTIFY payload is at most 8000 bytes: a longer result is not carried, and waiters read the event instead. */
const CARRIED_RESULT_BYTES = 7000;

/**
 * Selecting from a feed's row of feed_events (id, status, result, error): the SQL that NOTIFYs
 * every listening process, carrying how a done or failed feed ended when its result is short or
 * none; a rejected feed, or a long result, is announced by its id.
 */
const notifyFeedEndSql = () =>
  `pg_notify('${FEED_DONE_CHANNEL}', CASE WHEN status IN ('done', 'failed') AND coalesce(octet_length(result::text), 0) <= ${CARRIED_RESULT_BYTES}
     THEN json_build_object('id', id, 'status', status, 'result', result, 'error', error)::text ELSE id::text END)`;

/**
 * Runs the statement that finishes or fails a feed (an UPDATE of feed_events returning at least
 * id, status, result and error) and answers the `columns` of the rows it changed (`Extra`:
 * those the update returns that are not feed_events' own). On PostgreSQL
 * the NOTIFY is part of the same statement, sent as it commits with no round trip of its own;
 * the embedded process has no listeners to notify. announceHere tells the waiters in this process.
 * `alongside`: data-modifying statements (by CTE name) that commit with it. `on`: where the
 * statement runs when not on `db` itself (a transaction of it).
 */
export async function updateAnnouncingEnd<Column extends keyof Row.FeedEvent, Extra extends string = never>(
  db: Db,
  update: Knex.QueryBuilder,
  columns: (Column | Extra)[],
  alongside: Record<string, Knex.Raw | Knex.QueryBuilder> = {},
  on: Knex = db,
): Promise<(Pick<Row.FeedEvent, Column> & Record<Extra, unknown>)[]> {
  const extra = Object.entries(alongside);
  let rows: (Pick<Row.FeedEvent, Column> & Record<Extra, unknown>)[];
  if (db.embedded && extra.length === 0) rows = await update;
  else {
    let statement = on.with('ended', update);
    for (const [name, sql] of extra) statement = statement.with(name, sql);
    const ended = await statement.from('ended').select(...columns, ...(db.embedded ? [] : [db.raw(notifyFeedEndSql())]));
    rows = ended;
  }
  return rows;
}

export function announceHere(feedId: string, end?: FeedEnd): void {
  done.emit(feedId, end);
}

/** Calls back once the feed is announced, with how it ended when the announcement carries it; returns the function that stops listening. */
export function onFeedDone(feedId: string, callback: (end?: FeedEnd) => void): () => void {
  done.once(feedId, callback);
  return () => done.off(feedId, callback);
}

/** A feed_done payload: a feed id, or how a feed ended as JSON (notifyFeedEndSql). Anything else is ignored. */
function announcement(payload: string): { id: string; end?: FeedEnd } | null {
  if (!payload.startsWith('{')) return { id: payload };
  try {
    const { id, status, result, error } = JSON.parse(payload);
    return typeof id === 'string' && (status === 'done' || status === 'failed') ? { id, end: { status, result: result ?? null, error: error ?? null } } : null;
  } catch {
    return null;
  }
}

/**
 * Listens for feed_done notifications on a connection of its own (not from the pool: LISTEN lasts
 * as long as the connection) and passes each to this process's waiters. A lost connection is made
 * again after a second; meanwhile waiters fall back to polling.
 */
export function startFeedDoneListener(databaseUrl: string, logger: Logger): { close(): Promise<void> } {
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  const connect = async () => {
    const c = new pg.Client({ connectionString: databaseUrl });
    client = c;
    c.on('notification', (message) => {
      const announced = message.channel === FEED_DONE_CHANNEL && message.payload ? announcement(message.payload) : null;
      if (announced) done.emit(announced.id, announced.end);
    });
    c.on('error', (err) => {
      logger.warn({ err: err.message }, 'the feed_done listener lost its connection; listening again in a second');
      again(c);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${FEED_DONE_CHANNEL}`);
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'the feed_done listener could not connect; trying again in a second');
      again(c);
    }
  };
  const again = (c: pg.Client) => {
    c.end().catch(() => undefined);
    if (closed || retry || client !== c) return;
    retry = setTimeout(() => {
      retry = null;
      if (!closed) void connect();
    }, 1000);
  };
  void connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
