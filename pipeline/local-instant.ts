import { Info, Settings, type Zone } from 'luxon';
import { detached } from './detached-string.js';

/** A wall-clock time: a date and a time of day, to whole minutes. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

/** Offsets (minutes) already asked of a zone, by instant; cleared when it grows past OFFSETS_KEPT. */
const offsets = new Map<string, { zone: Zone; at: Map<number, number> }>();
const OFFSETS_KEPT = 4096;
const MINUTE_MS = 60 * 1000;

/** The zone of a name as luxon reads it (an IANA name, UTC, a fixed offset), with its offsets asked so far; null when luxon knows no such zone. */
function zoneOf(name: string): { zone: Zone; at: Map<number, number> } | null {
  let entry = offsets.get(name);
  if (!entry) {
    // Kept for the process (here and in luxon's zone cache): a copy, not a view of the feed's text.
    const own = detached(name);
    const zone = Info.normalizeZone(own);
    if (!zone.isValid) return null;
    entry = { zone, at: new Map() };
    offsets.set(own, entry);
  }
  return entry;
}

/**
 * The zone's offset at an instant, as luxon gives it (Intl underneath, about a microsecond and
 * several objects a call): kept per instant, since a feed's local times fall on few of them (open
 * homes on the quarter hours of the coming weeks).
 */
function offsetAt(entry: { zone: Zone; at: Map<number, number> }, ts: number): number {
  let offset = entry.at.get(ts);
  if (offset === undefined) {
    if (entry.at.size >= OFFSETS_KEPT) entry.at.clear();
    offset = entry.zone.offset(ts);
    entry.at.set(ts, offset);
  }
  return offset;
}

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The wall time as if it were UTC (years 0 to 99 are those years, not 1900 to 1999). */
function asUtc(t: WallTime): number {
  const ms = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute);
  if (t.year < 0 || t.year >= 100) return ms;
  const d = new Date(ms);
  d.setUTCFullYear(t.year, t.month - 1, t.day);
  return d.getTime();
}

/**
 * The instant (epoch milliseconds) a wall time in a zone names, and the zone's offset then, by
 * exactly the rule luxon's DateTime.fromObject(t, { zone }) follows: a time that falls in a gap
 * (clocks put forward) is moved on by the gap; one that happens twice (clocks put back) takes the
 * offset the zone has now when that is one of the two. Null where luxon's DateTime would be invalid
 * (no such date or time of day, or no such zone). Only the offsets come from luxon (kept per instant),
 * so the many times of a feed cost no DateTime each.
 */
export function localInstant(t: WallTime, zoneName: string): { ts: number; offset: number } | null {
  const entry = zoneOf(zoneName);
  if (!entry || !Number.isInteger(t.year) || !Number.isInteger(t.month) || t.month < 1 || t.month > 12) return null;
  const days = t.month === 2 && isLeapYear(t.year) ? 29 : MONTH_DAYS[t.month - 1];
  if (!Number.isInteger(t.day) || t.day < 1 || t.day > days) return null;
  if (!Number.isInteger(t.minute) || t.minute < 0 || t.minute > 59) return null;
  // As luxon: 24:00 is the next day's midnight.
  if (!Number.isInteger(t.hour) || t.hour < 0 || t.hour > 24 || (t.hour === 24 && t.minute !== 0)) return null;
  const local = asUtc(t);
  // luxon's guess is the zone's offset now (to the minute here, as kept offsets are per instant).
  const guess = offsetAt(entry, Math.floor(Settings.now() / MINUTE_MS) * MINUTE_MS);
  const first = local - guess * MINUTE_MS;
  const o2 = offsetAt(entry, first);
  if (o2 === guess) return { ts: first, offset: guess };
  const second = first - (o2 - guess) * MINUTE_MS;
  const o3 = offsetAt(entry, second);
  if (o2 === o3) return { ts: second, offset: o2 };
  return { ts: local - Math.min(o2, o3) * MINUTE_MS, offset: Math.max(o2, o3) };
}

/** The wall time an instant is at a given offset (minutes). */
export function wallTimeAt(ts: number, offset: number): WallTime {
  const d = new Date(ts + offset * MINUTE_MS);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes() };
}

/** An instant as ISO 8601 UTC without milliseconds when it has none, as luxon's toUTC().toISO({ suppressMilliseconds: true }) writes it. */
export function isoUtcOf(ts: number): string {
  let iso = written.get(ts);
  if (iso === undefined) {
    iso = new Date(ts).toISOString();
    if (ts % 1000 === 0) iso = `${iso.slice(0, -5)}Z`;
    if (written.size >= OFFSETS_KEPT) written.clear();
    written.set(ts, iso);
  }
  return iso;
}

/** Instants already written by isoUtcOf (a feed's times fall on few of them). */
const written = new Map<number, string>();
