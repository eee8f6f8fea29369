import { DateTime } from 'luxon';
import { detached } from '../detached-string.js';

export type DateResult =
  | { ok: true; value: string; nonstandard: boolean }
  | { ok: false; code: 'zero_date' | 'placeholder_value' | 'invalid_date'; reason: string };

/** The formats REA documents (Common Data Types). Anything else we understand is "nonstandard". */
const STANDARD = [/^\d{4}-\d{2}-\d{2}$/, /^\d{4}-\d{2}-\d{2}[-T]\d{2}:\d{2}(:\d{2})?$/, /^\d{8}$/, /^\d{8}[-T]\d{4}(\d{2})?$/];

/** Liberal reading: single-digit hours, AM/PM, space or missing separators, fractions, offsets. */
const LIBERAL = /^(\d{4})-?(\d{2})-?(\d{2})(?:(?:[-T ]|\s+)?(\d{1,2}):?(\d{2})(?::?(\d{2}))?(?:\.(\d+))?\s*([AaPp][Mm])?)?\s*(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * The longest date text read (docs/security.md, Text the parsers read). The longest form read, a
 * date-time with a fraction of a second, AM/PM and an offset, is about 40 characters; LIBERAL
 * backtracks on long runs of white space (100,000 spaces after a date: 42 s), so longer text is no
 * date and is not matched at all.
 */
export const DATE_MAX_CHARS = 64;

/** True when a REAXML date-time states its own UTC offset (or Z), so no zone is assumed to read it. */
export function hasExplicitOffset(raw: string): boolean {
  if (raw.length > DATE_MAX_CHARS && raw.trim().length > DATE_MAX_CHARS) return false;
  const m = LIBERAL.exec(raw.trim());
  return m !== null && m[9] !== undefined;
}

/** Results by dateOnly, zone and text; results are frozen, so callers can share them. */
const parsed = new Map<string, DateResult>();

/**
 * Reads a REAXML date or date-time. Zone-less values are read in `zone` (the listing's local
 * zone) and returned as ISO-8601 UTC, with milliseconds when the value gives a fraction of a
 * second; with `dateOnly` the calendar date is returned as is.
 */
export function parseReaDate(raw: string, zone: string, options: { dateOnly?: boolean } = {}): DateResult {
  if (raw.length > DATE_MAX_CHARS) {
    const length = raw.trim().length;
    if (length > DATE_MAX_CHARS)
      return { ok: false, code: 'invalid_date', reason: `a text of ${length} characters is not a date (a date is at most ${DATE_MAX_CHARS})` };
  }
  const dateOnly = options.dateOnly === true;
  // The images of a listing mostly carry one modTime, read one after another: the last answer is
  // given again without building a cache key.
  if (raw === last.raw && zone === last.zone && dateOnly === last.dateOnly) return last.result;
  // Feeds repeat the same few date strings (every image of a listing, every listing of an export).
  const key = `${dateOnly ? 'd' : 't'}|${zone}|${raw}`;
  let result = parsed.get(key);
  if (result === undefined) {
    // The cache outlives the feed: what it keeps (the key, the reasons quoting the text, luxon's
    // own zone cache) is made from copies, or each entry would keep the 64 KB of feed text the
    // date was cut from (detached-string.ts).
    result = Object.freeze(readReaDate(detached(raw), detached(zone), options));
    if (parsed.size >= 50_000) parsed.clear();
    parsed.set(detached(key), result);
  }
  last = { raw, zone, dateOnly, result };
  return result;
}

/** The last date read, with what it was read as. */
let last: { raw: string; zone: string; dateOnly: boolean; result: DateResult } = {
  raw: '',
  zone: '',
  dateOnly: false,
  result: { ok: false, code: 'invalid_date', reason: '' },
};

function readReaDate(raw: string, zone: string, options: { dateOnly?: boolean }): DateResult {
  const text = raw.trim();
  if (/^0{4}/.test(text)) {
    return { ok: false, code: 'zero_date', reason: `"${raw}" is a zero date` };
  }
  const m = LIBERAL.exec(text);
  if (!m) {
    const placeholder = /^[A-Z_-]*(REPLACE|PLACEHOLDER|XXXX|TBA|TBC)[A-Z_-]*$/i.test(text) || !/\d/.test(text);
    return placeholder
      ? { ok: false, code: 'placeholder_value', reason: `"${raw}" is a placeholder, not a date` }
      : { ok: false, code: 'invalid_date', reason: `"${raw}" is not a date REAXML allows` };
  }
  const [, y, mo, d, h, mi, s, fraction, ampm, offset] = m;
  let hour = h === undefined ? 0 : Number(h);
  if (ampm) {
    if (hour < 1 || hour > 12) return { ok: false, code: 'invalid_date', reason: `"${raw}" has hour ${hour} with ${ampm}` };
    hour = (hour % 12) + (/p/i.test(ampm) ? 12 : 0);
  }
  const parts = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour,
    minute: mi === undefined ? 0 : Number(mi),
    second: s === undefined ? 0 : Number(s),
    // Milliseconds, where a fraction of a second is given (finer digits are dropped).
    millisecond: fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0')),
  };
  if (parts.month === 0 || parts.day === 0) return { ok: false, code: 'zero_date', reason: `"${raw}" is a zero date` };
  const nonstandard = !STANDARD.some((re) => re.test(text));
  if (parts.minute > 59 || parts.second > 59 || parts.hour > 23) {
    return { ok: false, code: 'invalid_date', reason: `"${raw}" is not a valid time of day` };
  }
  const fixedZone = offset ? (offset === 'Z' ? 'UTC' : `UTC${offset.slice(0, 3)}:${offset.slice(-2)}`) : zone;
  const offsetMinutes = zoneOffsetAt(fixedZone, parts.year, parts.month, parts.day, options.dateOnly ? 12 : parts.hour);
  if (offsetMinutes === null) return { ok: false, code: 'invalid_date', reason: `"${raw}" is not a valid calendar date` };
  if (options.dateOnly) return { ok: true, value: `${y}-${mo}-${d}`, nonstandard };
  const utc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second, parts.millisecond) - offsetMinutes * 60000;
  return { ok: true, value: new Date(utc).toISOString().replace('.000Z', 'Z'), nonstandard };
}

/**
 * UTC offset of `zone` at a local date and hour, or null for an impossible date. Zone offsets
 * change only on hour boundaries, so the answer is cached per local hour: computing it (luxon,
 * Intl) costs far more than the rest of a listing's mapping.
 */
const offsetCache = new Map<string, number | null>();
function zoneOffsetAt(zone: string, year: number, month: number, day: number, hour: number): number | null {
  const key = `${zone}|${year}|${month}|${day}|${hour}`;
  let cached = offsetCache.get(key);
  if (cached === undefined) {
    const dt = DateTime.fromObject({ year, month, day, hour }, { zone });
    cached = dt.isValid && dt.day === day ? dt.offset : null;
    if (offsetCache.size > 100_000) offsetCache.clear();
    offsetCache.set(detached(key), cached);
  }
  return cached;
}
