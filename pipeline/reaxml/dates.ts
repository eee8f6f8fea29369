import { DateTime } from 'luxon';

export type DateResult =
  | { ok: true; value: string; nonstandard: boolean }
  | { ok: false; code: 'zero_date' | 'placeholder_value' | 'invalid_date'; reason: string };

/** The formats REA documents (Common Data Types). Anything else we understand is "nonstandard". */
const STANDARD = [
  /^\d{4}-\d{2}-\d{2}$/,
  /^\d{4}-\d{2}-\d{2}[-T]\d{2}:\d{2}(:\d{2})?$/,
  /^\d{8}$/,
  /^\d{8}[-T]\d{4}(\d{2})?$/,
];

/** Liberal reading: single-digit hours, AM/PM, space or missing separators, fractions, offsets. */
const LIBERAL =
  /^(\d{4})-?(\d{2})-?(\d{2})(?:(?:[-T ]|\s+)?(\d{1,2}):?(\d{2})(?::?(\d{2}))?(?:\.\d+)?\s*([AaPp][Mm])?)?\s*(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Reads a REAXML date or date-time. Zone-less values are read in `zone` (the listing's local
 * zone) and returned as ISO-8601 UTC; with `dateOnly` the calendar date is returned as is.
 */
export function parseReaDate(raw: string, zone: string, options: { dateOnly?: boolean } = {}): DateResult {
  const text = raw.trim();
  if (/^0{4}-?0{2}-?0{2}/.test(text) || /^0{4}/.test(text)) {
    return { ok: false, code: 'zero_date', reason: `"${raw}" is a zero date` };
  }
  const m = LIBERAL.exec(text);
  if (!m) {
    const placeholder = /^[A-Z_-]*(REPLACE|PLACEHOLDER|XXXX|TBA|TBC)[A-Z_-]*$/i.test(text) || !/\d/.test(text);
    return placeholder
      ? { ok: false, code: 'placeholder_value', reason: `"${raw}" is a placeholder, not a date` }
      : { ok: false, code: 'invalid_date', reason: `"${raw}" is not a date REAXML allows` };
  }
  const [, y, mo, d, h, mi, s, ampm, offset] = m;
  let hour = h === undefined ? 0 : Number(h);
  if (ampm) {
    if (hour < 1 || hour > 12) return { ok: false, code: 'invalid_date', reason: `"${raw}" has hour ${hour} with ${ampm}` };
    hour = (hour % 12) + (/p/i.test(ampm) ? 12 : 0);
  }
  const parts = { year: Number(y), month: Number(mo), day: Number(d), hour, minute: mi === undefined ? 0 : Number(mi), second: s === undefined ? 0 : Number(s) };
  if (parts.month === 0 || parts.day === 0) return { ok: false, code: 'zero_date', reason: `"${raw}" is a zero date` };
  const nonstandard = !STANDARD.some((re) => re.test(text));
  if (options.dateOnly) {
    const date = DateTime.fromObject({ year: parts.year, month: parts.month, day: parts.day }, { zone: 'UTC' });
    if (!date.isValid) return { ok: false, code: 'invalid_date', reason: `"${raw}" is not a valid calendar date` };
    return { ok: true, value: date.toISODate()!, nonstandard };
  }
  const fixedZone = offset ? (offset === 'Z' ? 'UTC' : `UTC${offset.slice(0, 3)}:${offset.slice(-2)}`) : zone;
  const dt = DateTime.fromObject(parts, { zone: fixedZone });
  if (!dt.isValid) return { ok: false, code: 'invalid_date', reason: `"${raw}" is not a valid date-time (${dt.invalidExplanation ?? dt.invalidReason})` };
  return { ok: true, value: dt.toUTC().toISO({ suppressMilliseconds: true })!, nonstandard };
}
