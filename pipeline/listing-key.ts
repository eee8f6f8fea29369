/** The stable string identity of a listing: office and uniqueId, each percent-encoded, joined by "/". */
export function listingKey(office: string, uniqueId: string): string {
  return `${encodeURIComponent(office)}/${encodeURIComponent(uniqueId)}`;
}

/** The key of a feed item's identity (listing or project), or null when it has none. */
export function keyOfIdentity(identity: { office: string; uniqueId: string } | null): string | null {
  return identity ? listingKey(identity.office, identity.uniqueId) : null;
}

/** The office of a listing key (the part before the first '/', decoded). */
export function officeOfKey(key: string): string {
  return decodeURIComponent(key.slice(0, key.indexOf('/')));
}

/** The uniqueId of a listing key (the part after the first '/', decoded). */
export function uniqueIdOfKey(key: string): string {
  return decodeURIComponent(key.slice(key.indexOf('/') + 1));
}
