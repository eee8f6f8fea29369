import type { Address } from './types.js';

/**
 * An address as one line, as people write it: "3/12 Sample Road Richmond VIC 3121", and for a lot
 * without a street number "Lot 5 Sample Road …". Accepts a stored record's address as it comes
 * from the database (fields may be missing in older records). Pure.
 */
export function addressLine(address: Partial<Address> | Record<string, unknown> | null | undefined): string {
  const a = (address ?? {}) as Partial<Record<keyof Address, unknown>>;
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
  const number = [text(a.subNumber), text(a.streetNumber)].filter(Boolean).join('/');
  const lot = text(a.lotNumber);
  return [lot ? `Lot ${lot}` : null, number || null, text(a.street), text(a.locality), text(a.region), text(a.postcode)].filter(Boolean).join(' ');
}
