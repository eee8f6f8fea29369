/** PostgreSQL's unique_violation: an insert or update hit a unique constraint. */
export const isUniqueViolation = (err: unknown): boolean => (err as { code?: string } | null)?.code === '23505';

/**
 * PostgreSQL's query_canceled: a statement cancelled by its statement_timeout (a public read past
 * DB_READ_TIMEOUT_MS) or by an operator. Nothing about the request was wrong; the read did not finish.
 */
export const isStatementCancelled = (err: unknown): boolean => (err as { code?: string } | null)?.code === '57014';
