import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Db } from './knex.js';
import { isUniqueViolation } from './pg-errors.js';

/*
 * COPY … FROM STDIN (PostgreSQL only; PGlite has no such input): data goes to the server as text
 * in pieces of about 64 KB, each made while the pieces before it are sent. A statement's
 * parameters go as one message, which pg assembles in buffers that grow by half again until the
 * message fits: a batch of 500 listings allocated about 6 MB of them, and a 50,000-listing feed's
 * 14 MB result 34 MB, which lived until a full garbage collection and made up the worker's peak.
 */

/** A column's value as COPY's text format reads it: null, a boolean, or text. */
export type CopyValue = string | boolean | null;

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A value as a field of COPY's text format: \N for null, t/f, text with backslash, tab and line ends escaped. */
export function copyField(value: CopyValue): string {
  if (value === null) return '\\N';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return value.replace(/[\\\t\n\r]/g, (ch) => ESCAPES[ch]);
}

/** About this many characters go to PostgreSQL in each piece. */
export const PIECE_CHARS = 64 * 1024;

/** Rows as COPY text, a piece of about PIECE_CHARS at a time, each row made as its piece is. */
export function* rowPieces<Row>(rows: readonly Row[], columns: readonly (keyof Row & string)[]): Generator<string> {
  let piece = '';
  for (const row of rows) {
    let line = '';
    for (let i = 0; i < columns.length; i += 1) {
      const value = row[columns[i]] as CopyValue | undefined;
      // An INSERT would write the column's default; a COPY of these columns has none to write.
      if (value === undefined) throw new TypeError(`a row to copy has no value for ${columns[i]}`);
      line += (i === 0 ? '' : '\t') + copyField(value);
    }
    piece += `${line}\n`;
    if (piece.length >= PIECE_CHARS) {
      yield piece;
      piece = '';
    }
  }
  if (piece) yield piece;
}

/**
 * One text value, given in parts, as the only field of one row: the parts joined into pieces of
 * at least PIECE_CHARS (a part is never cut, so neither is a character) and escaped piece by piece.
 */
export function* fieldPieces(parts: Iterable<string>): Generator<string> {
  let piece = '';
  for (const part of parts) {
    piece += part;
    if (piece.length >= PIECE_CHARS) {
      yield copyField(piece);
      piece = '';
    }
  }
  yield `${copyField(piece)}\n`;
}

/**
 * Runs `COPY … FROM STDIN` with the pieces as its data, on the connection of `db`: a connection of
 * the pool, or the transaction's own when `db` is a transaction.
 */
export async function copyIn(db: Knex, sql: string, pieces: Iterable<string>): Promise<void> {
  const conn = (await db.client.acquireConnection()) as PoolClient;
  try {
    await pipeline(Readable.from(pieces, { objectMode: false }), conn.query(copyFrom(sql)));
  } finally {
    await db.client.releaseConnection(conn);
  }
}

/** Whether rows can be copied on this database: PostgreSQL through the pool (PGlite has no COPY FROM STDIN; in a transaction a failed COPY would abort it). */
export const canCopy = (db: Knex): boolean => (db as Knex & Partial<Pick<Db, 'embedded'>>).embedded === false && !db.isTransaction;

/**
 * Writes new rows with COPY. COPY cannot skip a row whose key is already stored: when one is
 * (another feed inserted it since the caller looked), the COPY fails as a whole, nothing of it is
 * kept, and false is returned, for the caller to write those rows another way. Any other failure
 * is thrown.
 */
export async function copyNewRows<Row>(db: Knex, table: string, columns: readonly (keyof Row & string)[], rows: readonly Row[]): Promise<boolean> {
  const names = columns.map((c) => `"${c}"`).join(', ');
  try {
    await copyIn(db, `COPY "${table}" (${names}) FROM STDIN`, rowPieces(rows, columns));
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}
