/** The stable string identity of a listing: office and uniqueId, each percent-encoded, joined by "/". */
export function listingKey(office: string, uniqueId: string): string {
  return `${encodeURIComponent(office)}/${encodeURIComponent(uniqueId)}`;
}

/** The office of a listing key (the part before the first '/', decoded). */
export function officeOfKey(key: string): string {
  return decodeURIComponent(key.slice(0, key.indexOf('/')));
}
