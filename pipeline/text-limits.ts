import type { ListingIssues } from './issues.js';
import type { ListingDelta } from './types.js';

/**
 * The longest text a stored listing keeps in one field, in UTF-16 code units (characters for all
 * but the rarest scripts). Longer text is cut at the limit with a `text_truncated` warning naming
 * the field, so no feed can make a public answer hundreds of megabytes.
 */
export const TEXT_LIMITS = {
  /** Per locale. */
  headline: 300,
  /** Per locale: as long as a site page body may be. */
  description: 20_000,
  /** Per locale: the sanitized HTML variant of the description (markup included). */
  descriptionHtml: 40_000,
  /** Every other text: names, emails, phone numbers, price text, URLs, commercial and rural details… */
  other: 2_000,
} as const;

/**
 * The most characters of text (every string and member name, after the cuts above) one listing
 * record may carry. Each text has its limit, but lists (media, agents, inspections…) and feature
 * names have no count: past this the record is refused with `listing_too_large` (an error: the
 * listing is not stored, a stored version stays as it was), so no one record can make a public
 * answer megabytes long. Real listings hold a few thousand to a few tens of thousands.
 */
export const LISTING_MAX_CHARS = 1_000_000;

const PER_LOCALE = new Set(['headline', 'description', 'descriptionHtml']);
/** The identity and times are checked where they are read; they are never cut. */
const UNCUT = new Set(['office', 'uniqueId', 'modTime', 'format', 'category', 'status', 'saleMode', 'projectKey']);

/** The first `limit` code units, without leaving half a surrogate pair at the end. */
export function cut(text: string, limit: number): string {
  const end = text.charCodeAt(limit - 1) >= 0xd800 && text.charCodeAt(limit - 1) <= 0xdbff ? limit - 1 : limit;
  return text.slice(0, end);
}

/**
 * Cuts every text of a delta to its limit (in place), warning once per field cut, and refuses a
 * record whose text adds up to more than LISTING_MAX_CHARS. Pure apart from the delta and issues
 * it is given.
 */
export function capDeltaText<T extends ListingDelta>(delta: T, issues: ListingIssues, path: string): T {
  let chars = 0;
  // Where the visit is (field, then member names and positions): named only when a text is cut,
  // so a record with nothing to cut builds no names.
  const trail: (string | number)[] = [];
  const fieldName = () => trail.map((step, i) => (i === 0 ? step : typeof step === 'number' ? `[${step}]` : `.${step}`)).join('');
  const visit = (value: unknown, limit: number): unknown => {
    if (typeof value === 'string') {
      if (value.length <= limit) {
        chars += value.length;
        return value;
      }
      issues.warning('text_truncated', `${fieldName()} is ${value.length} characters long; the first ${limit} are kept`, path);
      chars += limit;
      return cut(value, limit);
    }
    chars += 1;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) visitMember(value, i, limit);
    } else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        chars += key.length;
        visitMember(record, key, limit);
      }
    }
    return value;
  };
  /** Visits one member (by name or position) and writes it back only when it was cut. */
  function visitMember(holder: Record<string, unknown> | unknown[], key: string | number, limit: number): void {
    trail.push(key);
    const member = (holder as Record<string | number, unknown>)[key];
    const kept = visit(member, limit);
    if (kept !== member) (holder as Record<string | number, unknown>)[key] = kept;
    trail.pop();
  }
  const record = delta as unknown as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (UNCUT.has(key)) continue;
    const limit = PER_LOCALE.has(key) ? TEXT_LIMITS[key as keyof typeof TEXT_LIMITS] : TEXT_LIMITS.other;
    visitMember(record, key, limit);
  }
  if (chars > LISTING_MAX_CHARS) {
    issues.error(
      'listing_too_large',
      `the record holds about ${chars} characters of text (media, agents, features and other lists included); the most a listing may hold is ${LISTING_MAX_CHARS}. Not stored`,
      path,
    );
  }
  return delta;
}
