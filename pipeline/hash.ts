import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';

/** Bookkeeping that does not make a listing different: a re-sent, otherwise identical record is unchanged. */
const EXCLUDED: ReadonlySet<string> = new Set(['modTime', 'contentHash', 'hidden']);

/** sha256 of the canonical content with keys in a stable order, modTime and bookkeeping excluded. */
export function contentHash(listing: object): string {
  const content: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(listing)) if (!EXCLUDED.has(k)) content[k] = v;
  return createHash('sha256')
    .update(stringify(content) ?? '')
    .digest('hex');
}
