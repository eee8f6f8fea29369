import { notFound } from '../lib/errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID.test(value);

/**
 * A path id that must be a UUID. Anything else cannot name a row, so it is a 404 like an
 * unknown id (and never reaches PostgreSQL, which would reject the cast).
 */
export function uuidParam(raw: unknown, what: string): string {
  const id = String(raw);
  if (!isUuid(id)) throw notFound(`no ${what} ${id}`);
  return id;
}
