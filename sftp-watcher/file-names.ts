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

/** DESIGN.md §10: `.xml` is REAXML, `.reso.json` RESO, `.project.json` project; `.full.` in the name means mode=full. */
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

/** The collision-free name a claimed file gets in processing/ (and keeps in processed/ or failed/). */
export function claimNameOf(name: string, now: Date, id: string): string {
  return `${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${id}-${name}`;
}

/** The original name and claim time of a claim name, or null when it is not one. */
export function parseClaimName(claim: string): { name: string; claimedAt: Date } | null {
  const m = /^(\d{8}T\d{6}Z)-([a-z0-9]+)-(.+)$/.exec(claim);
  if (!m) return null;
  const t = m[1];
  const claimedAt = new Date(`${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(9, 11)}:${t.slice(11, 13)}:${t.slice(13, 15)}Z`);
  return { name: m[3], claimedAt };
}
