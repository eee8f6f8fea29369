/**
 * A set of source fingerprints (`reaxml2:<sha256 base64url>`) that threads can share without
 * copying: the first 8 bytes of each digest, sorted, in a SharedArrayBuffer. A reading thread
 * asks it whether a listing's source is one the store already has, to skip mapping it; the
 * answer is a hint only (8 bytes can collide, and the store may change meanwhile): ingestion still
 * decides on the stored fingerprint itself and maps the listing then if it must.
 */
export type KnownFingerprints = SharedArrayBuffer;

/** The first 8 bytes of a fingerprint's digest, or null when it is not one. */
function prefixOf(fingerprint: string): bigint | null {
  const colon = fingerprint.indexOf(':');
  if (colon < 0 || fingerprint.length < colon + 12) return null;
  const bytes = Buffer.from(fingerprint.slice(colon + 1, colon + 12), 'base64url');
  return bytes.length >= 8 ? bytes.readBigUInt64BE(0) : null;
}

export function knownFingerprints(fingerprints: Iterable<string>): KnownFingerprints {
  const prefixes: bigint[] = [];
  for (const f of fingerprints) {
    const p = prefixOf(f);
    if (p !== null) prefixes.push(p);
  }
  const shared = new SharedArrayBuffer(prefixes.length * 8);
  const view = new BigUint64Array(shared);
  view.set(prefixes);
  view.sort();
  return shared;
}

export function isKnown(known: KnownFingerprints, fingerprint: string): boolean {
  const p = prefixOf(fingerprint);
  if (p === null) return false;
  const view = new BigUint64Array(known);
  let lo = 0;
  let hi = view.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = view[mid];
    if (v === p) return true;
    if (v < p) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
