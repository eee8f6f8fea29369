import type { DateTime } from 'luxon';
import { isoUtcOf, localInstant, wallTimeAt } from './local-instant.js';

/** An open home (a REAXML inspection, a RESO OpenHouse) as stored: its instants (ISO 8601 UTC) and the source's text, when it has one. */
export interface OpenHome {
  start: string;
  end: string;
  text?: string;
}

/** The longest inspection text read; longer text is kept but not read (the pattern never sees it). */
export const INSPECTION_MAX_CHARS = 120;

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

const WEEKDAY = '(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)[a-z]*\\.?,?\\s*';
const MONTH_NAME = '(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?';
/** A date: 21-Jan-2009, 21 January 2009, 21st Jan 2009, 21/01/2009, 21.01.2009, 2009-01-21. */
const DATE = `(?:(\\d{1,2})(?:st|nd|rd|th)?[\\s-]+${MONTH_NAME}[\\s,-]+(\\d{4})|(\\d{1,2})[/.](\\d{1,2})[/.](\\d{4})|(\\d{4})-(\\d{2})-(\\d{2}))`;
/** A time of day: 11:00am, 11am, 11.00 AM, 11:00 a.m., 13:00. */
const TIME = '(\\d{1,2})(?:[:.](\\d{2}))?\\s*([ap])?\\.?\\s*(?:m\\.?)?';
/** Between the start and the end: "to", "until", "till", a hyphen or dash. */
const SEPARATOR = '\\s*(?:to|until|till|-|–|—)\\s*';

const INSPECTION = new RegExp(`^(?:${WEEKDAY})?${DATE}[\\s,]*(?:(?:at|from)\\s+)?${TIME}${SEPARATOR}${TIME}$`, 'i');

/** Hour and minute of a matched time, the meridiem applied (null: not a time of day). */
function hourOf(h: string, m: string | undefined, meridiem: string | undefined): { hour: number; minute: number } | null {
  let hour = Number(h);
  const minute = m === undefined ? 0 : Number(m);
  if (minute > 59) return null;
  if (meridiem) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (meridiem.toLowerCase() === 'p' ? 12 : 0);
  } else if (hour > 23) return null;
  return { hour, minute };
}

/**
 * Reads an inspection's text, in every spelling real feeds use (REAXML's "21-Jan-2009 11:00am to
 * 1:00pm", upper or lower case AM/PM, 24-hour times, a weekday in front, dashes or "to", a month
 * spelt out, day/month/year with slashes or dots, ISO dates), as local times in `zone` (the
 * listing's own). A start without AM/PM takes the end's ("11-1pm" is 11am to 1pm; "2-3pm" is
 * 2pm to 3pm). Numeric dates are day first except with `monthFirst` (a US listing). Null when the
 * text is not one of these, is no real date or time, or ends before it starts.
 */
export function parseInspection(raw: string, zone: string, options: { monthFirst?: boolean } = {}): { start: string; end: string } | null {
  if (raw.length > INSPECTION_MAX_CHARS) return null;
  const text = raw.trim().replace(/\s+/g, ' ');
  const m = INSPECTION.exec(text);
  if (!m) return null;
  const [, d1, mon, y1, n1, n2, y2, y3, mo3, d3, h1, m1, ap1, h2, m2, ap2] = m;
  let year: number;
  let month: number;
  let day: number;
  if (y1) [year, month, day] = [Number(y1), MONTHS[mon.toLowerCase().slice(0, 4)] ?? MONTHS[mon.toLowerCase().slice(0, 3)], Number(d1)];
  else if (y2) [year, month, day] = options.monthFirst ? [Number(y2), Number(n1), Number(n2)] : [Number(y2), Number(n2), Number(n1)];
  else [year, month, day] = [Number(y3), Number(mo3), Number(d3)];
  const end = hourOf(h2, m2, ap2);
  if (!end) return null;
  let start = hourOf(h1, m1, ap1 ?? ap2);
  if (!ap1 && ap2 && start && start.hour * 60 + start.minute >= end.hour * 60 + end.minute) start = hourOf(h1, m1, 'a');
  if (!start) return null;
  // As DateTime.fromObject in the zone would read them (localInstant), without a DateTime each.
  const from = localInstant({ year, month, day, ...start }, zone);
  const to = localInstant({ year, month, day, ...end }, zone);
  if (!from || !to) return null;
  const fromWall = wallTimeAt(from.ts, from.offset);
  if (fromWall.day !== day || fromWall.month !== month) return null;
  if (to.ts <= from.ts) return null;
  return { start: isoUtcOf(from.ts), end: isoUtcOf(to.ts) };
}

/** An instant as ISO 8601 UTC without milliseconds (as modTime is stored). */
export const isoUtc = (dt: DateTime): string => dt.toUTC().toISO({ suppressMilliseconds: true })!;

/** How long an auction is taken to last where the source gives only its start (calendars, and when it stops being public). */
export const AUCTION_MINUTES = 60;

/** The open homes in time order (then by text), duplicates (same start and end) kept once. */
export function sortedOpenHomes(list: OpenHome[]): OpenHome[] {
  const seen = new Set<string>();
  return [...list]
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.end < b.end ? -1 : a.end > b.end ? 1 : 0))
    .filter((o) => {
      const key = `${o.start}|${o.end}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}
