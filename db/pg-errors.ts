/** PostgreSQL's unique_violation: an insert or update hit a unique constraint. */
export const isUniqueViolation = (err: unknown): boolean => (err as { code?: string } | null)?.code === '23505';
