import type { FeedFormat } from '../pipeline/types.js';

/** Suffixes upload clients use while a file is being written (WinSCP .filepart, and the usual others). */
const TEMPORARY = /\.(filepart|part|partial|tmp|temp|incomplete|upload|uploading|crdownload)$/i;

/** A name still being uploaded: a temporary suffix, or a dot-file. */
export function isTemporaryName(name: string): boolean {
  return name.startsWith('.') || TEMPORARY.test(name);
}

/** The final name a temporary upload name will be renamed to (`feed.xml.filepart` → `feed.xml`), or null. */
export function finalNameOf(temporary: string): string | null {
  const m = TEMPORARY.exec(temporary);
  return m ? temporary.slice(0, m.index) : null;
}

/** File names (docs/sftp.md): `.xml` is REAXML, `.reso.json` RESO, `.project.json` project; `.full.` in the name means mode=full. */
export function feedKindOf(name: string): { format: FeedFormat; mode: 'full' | 'incremental' } | null {
  const lower = name.toLowerCase();
  const format: FeedFormat | null = lower.endsWith('.reso.json')
    ? 'reso'
    : lower.endsWith('.project.json')
      ? 'project'
      : lower.endsWith('.xml')
        ? 'reaxml'
        : null;
  if (!format) return null;
  return { format, mode: lower.includes('.full.') ? 'full' : 'incremental' };
}

/** The longest file name (in bytes) the servers we meet take: NAME_MAX on Linux, BSD and macOS. */
const NAME_MAX_BYTES = 255;
/** Room kept for the longest report written beside a claim (`<claim>.duplicate.json`). */
const REPORT_SUFFIX = '.duplicate.json';
/** Bytes of a shortened name's end that are kept (its extension tells the format). */
const KEPT_END_BYTES = 48;

/** The code points of text whose UTF-8 bytes fit in `bytes`, from its start (or its end). */
function fitBytes(text: string, bytes: number, fromEnd = false): string {
  const points = Array.from(text);
  if (fromEnd) points.reverse();
  let used = 0;
  let n = 0;
  while (n < points.length && used + Buffer.byteLength(points[n]) <= bytes) used += Buffer.byteLength(points[n++]);
  const kept = points.slice(0, n);
  return (fromEnd ? kept.reverse() : kept).join('');
}

/**
 * A name within `bytes` UTF-8 bytes: as it is when it fits, else its start and its last
 * KEPT_END_BYTES bytes joined by `~` (the extension, and so the format, survive).
 */
export function fitName(name: string, bytes: number): string {
  if (Buffer.byteLength(name) <= bytes) return name;
  const end = fitBytes(name, KEPT_END_BYTES, true);
  return `${fitBytes(name, bytes - Buffer.byteLength(end) - 1)}~${end}`;
}

/**
 * The collision-free name a claimed file gets in processing/ (and keeps in processed/ or failed/).
 * It stays within the server's name limit with its longest report suffix added: a long original
 * name is shortened in the claim (the original is kept in the database and in every report).
 */
export function claimNameOf(name: string, now: Date, id: string): string {
  const prefix = `${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${id}-`;
  return prefix + fitName(name, NAME_MAX_BYTES - REPORT_SUFFIX.length - prefix.length);
}

/** The original name and claim time of a claim name, or null when it is not one. */
export function parseClaimName(claim: string): { name: string; claimedAt: Date } | null {
  const m = /^(\d{8}T\d{6}Z)-([a-z0-9]+)-(.+)$/.exec(claim);
  if (!m) return null;
  const t = m[1];
  const claimedAt = new Date(`${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(9, 11)}:${t.slice(11, 13)}:${t.slice(13, 15)}Z`);
  return { name: m[3], claimedAt };
}
