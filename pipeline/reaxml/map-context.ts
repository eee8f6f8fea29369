import { type ListingIssues, type PathRef, resolvePath } from '../issues.js';
import type { FeedContext } from '../types.js';
import { parseReaDate } from './dates.js';

/** What every mapping step needs: the feed context, the listing's zone and its issue list. */
export interface MapContext {
  feed: FeedContext;
  /** Currency injected on every price (context, else the listing country's). */
  currency: string;
  zone: string;
  issues: ListingIssues;
}

/** Reads a date attribute or text, recording why it was dropped when it cannot be read. */
export function readDate(ctx: MapContext, raw: string, path: PathRef, what: string, options: { dateOnly?: boolean } = {}): string | null {
  const result = parseReaDate(raw, ctx.zone, options);
  if (!result.ok) {
    ctx.issues.warning(result.code, `${what}: ${result.reason}; treated as no date`, resolvePath(path));
    return null;
  }
  if (result.nonstandard)
    ctx.issues.warning('nonstandard_date', `${what}: "${raw.trim()}" is not a format REAXML allows; read as ${result.value}`, resolvePath(path));
  return result.value;
}
