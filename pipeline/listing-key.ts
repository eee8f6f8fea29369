/** The stable string identity of a listing: office and uniqueId, each percent-encoded, joined by "/". */
export function listingKey(office: string, uniqueId: string): string {
  return `${encodeURIComponent(office)}/${encodeURIComponent(uniqueId)}`;
}
