const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

/**
 * Whether an error means the database cannot be reached (as opposed to a bad query): connection
 * refused or lost, no answer in time (pool, connect or query timeout), server shutting down, or PostgreSQL's connection-exception class.
 * The error middleware answers these with 503.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  if ((err as Error).name === 'KnexTimeoutError') return true;
  const e = err as { code?: unknown; message?: unknown; errors?: unknown[] };
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || e.code.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(e.code)))
    return true;
  if (Array.isArray(e.errors) && e.errors.some(isDatabaseUnavailable)) return true;
  return (
    typeof e.message === 'string' &&
    /Connection terminated|Client has encountered a connection error|connect ECONNREFUSED|PGlite is closed|Query read timeout|timeout expired/i.test(e.message)
  );
}

/**
 * Whether PostgreSQL cancelled a statement (57014, query_canceled): it ran past its connection's
 * statement_timeout (DB_READ_TIMEOUT_MS for public reads, 30 s for the rest), or an operator
 * cancelled it. The error middleware answers these with 503 too: the request may well succeed
 * when the database is less busy, and it is never the client's input at fault (that is a 400
 * before any query runs).
 */
export function isStatementCancelled(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; errors?: unknown[] };
  return e.code === '57014' || (Array.isArray(e.errors) && e.errors.some(isStatementCancelled));
}
