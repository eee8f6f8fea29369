/**
 * localInstant reads a wall time in a zone exactly as luxon's DateTime.fromObject does (the open
 * homes of a dry run are read with it, without a DateTime each): every quarter hour around each
 * daylight-saving change of 2024 to 2026 in zones that change by an hour, by half an hour (Lord
 * Howe), at midnight (Santiago, Havana) or not at all, and dates that do not exist.
 */
import { expect } from 'chai';
import { DateTime } from 'luxon';
import { isoUtcOf, localInstant, type WallTime, wallTimeAt } from '../../pipeline/local-instant.js';

const ZONES = [
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Australia/Adelaide',
  'Australia/Perth',
  'America/New_York',
  'America/Santiago',
  'America/Havana',
  'Europe/London',
  'Asia/Kolkata',
  'Pacific/Chatham',
  'UTC',
];

/** What luxon gives for the wall time: the instant as stored, and the wall time it names back; null when invalid. */
function byLuxon(t: WallTime, zone: string): { iso: string; wall: WallTime } | null {
  const dt = DateTime.fromObject(t, { zone });
  if (!dt.isValid) return null;
  return { iso: dt.toUTC().toISO({ suppressMilliseconds: true })!, wall: { year: dt.year, month: dt.month, day: dt.day, hour: dt.hour, minute: dt.minute } };
}

/** '2025-01-31 10:30' as a wall time; the year as written, so '0099' is the year 99. */
function wallTime(text: string): WallTime {
  const [year, month, day, hour, minute] = text.split(/[- :]/).map(Number);
  return { year, month, day, hour, minute };
}

function byLocalInstant(t: WallTime, zone: string): { iso: string; wall: WallTime } | null {
  const found = localInstant(t, zone);
  return found && { iso: isoUtcOf(found.ts), wall: wallTimeAt(found.ts, found.offset) };
}

describe('localInstant', () => {
  it('reads every quarter hour of the days around each offset change of 2024 to 2026 as luxon does', () => {
    let compared = 0;
    for (const zone of ZONES) {
      const start = DateTime.fromObject({ year: 2024, month: 1, day: 1 }, { zone });
      let previous = start.offset;
      // Each day of three years; the days where the offset changes (and the days either side) hour by hour, quarter hour by quarter hour.
      for (let day = start; day.year < 2027; day = day.plus({ days: 1 })) {
        const next = day.plus({ days: 1 });
        const changes = next.offset !== previous;
        previous = next.offset;
        const times = changes ? Array.from({ length: 24 * 4 * 3 }, (_, i) => day.minus({ days: 1 }).plus({ minutes: 15 * i })) : [day.set({ hour: 11 })];
        for (const at of times) {
          const t = { year: at.year, month: at.month, day: at.day, hour: at.hour, minute: at.minute };
          expect(byLocalInstant(t, zone), `${zone} ${JSON.stringify(t)}`).to.deep.equal(byLuxon(t, zone));
          compared += 1;
        }
      }
    }
    expect(compared).to.be.greaterThan(10000);
  });

  it('reads the hours that a change skips or repeats as luxon does', () => {
    const cases: [WallTime, string][] = [
      [{ year: 2025, month: 10, day: 5, hour: 2, minute: 30 }, 'Australia/Sydney'], // skipped
      [{ year: 2025, month: 4, day: 6, hour: 2, minute: 30 }, 'Australia/Sydney'], // repeated
      [{ year: 2025, month: 10, day: 5, hour: 2, minute: 15 }, 'Australia/Lord_Howe'],
      [{ year: 2025, month: 3, day: 9, hour: 2, minute: 0 }, 'America/New_York'],
      [{ year: 2025, month: 11, day: 2, hour: 1, minute: 30 }, 'America/New_York'],
      [{ year: 2025, month: 9, day: 7, hour: 0, minute: 0 }, 'America/Santiago'],
    ];
    for (const [t, zone] of cases) expect(byLocalInstant(t, zone), `${zone} ${JSON.stringify(t)}`).to.deep.equal(byLuxon(t, zone));
  });

  it('gives null where luxon gives an invalid DateTime, and reads years before 100 as those years', () => {
    // Year-month-day hour:minute; each either does not exist or is at the edge of what luxon reads.
    const cases = [
      '2023-02-29 10:00, 2024-02-29 10:00, 1900-02-29 10:00, 2000-02-29 10:00, 2025-04-31 10:00, 2025-13-01 10:00, 2025-00-01 10:00',
      '2025-01-00 10:00, 2025-01-01 24:00, 2025-01-01 10:60, 0099-12-31 23:00, 0000-01-01 00:00, 9999-12-31 23:59',
    ]
      .join(', ')
      .split(', ')
      .map(wallTime);
    for (const zone of ['Australia/Sydney', 'America/New_York', 'UTC'])
      for (const t of cases) expect(byLocalInstant(t, zone), `${zone} ${JSON.stringify(t)}`).to.deep.equal(byLuxon(t, zone));
    expect(localInstant({ year: 2025, month: 1, day: 1, hour: 10, minute: 0 }, 'Nowhere/Atlantis')).to.equal(null);
  });
});
