import { expect } from 'chai';
import { parseReaDate } from '../../pipeline/reaxml/dates.js';

const MEL = 'Australia/Melbourne';
const ok = (raw: string, zone = MEL) => {
  const r = parseReaDate(raw, zone);
  if (!r.ok) throw new Error(`${raw}: ${r.reason}`);
  return r;
};

describe('REAXML dates', () => {
  it('reads every format REA documents, zone-less in the listing zone', () => {
    const cases: [string, string][] = [
      ['2024-07-01', '2024-06-30T14:00:00Z'],
      ['2024-07-01-12:30', '2024-07-01T02:30:00Z'],
      ['2024-07-01-12:30:15', '2024-07-01T02:30:15Z'],
      ['2024-07-01T12:30', '2024-07-01T02:30:00Z'],
      ['2024-07-01T12:30:15', '2024-07-01T02:30:15Z'],
      ['20240701', '2024-06-30T14:00:00Z'],
      ['20240701-1230', '2024-07-01T02:30:00Z'],
      ['20240701-123015', '2024-07-01T02:30:15Z'],
      ['20240701T1230', '2024-07-01T02:30:00Z'],
      ['20240701T123015', '2024-07-01T02:30:15Z'],
    ];
    for (const [raw, utc] of cases) {
      expect(ok(raw), raw).to.deep.equal({ ok: true, value: utc, nonstandard: false });
    }
  });

  it('reads the malformed variants seen in the wild, flagged nonstandard', () => {
    const cases: [string, string][] = [
      ['2016-05-26T9:31:30', '2016-05-25T23:31:30Z'],
      ['2016-05-26-9:41:29', '2016-05-25T23:41:29Z'],
      ['2016-10-05-0:00:00', '2016-10-04T13:00:00Z'], // AEDT (UTC+11) from October
      ['2015-12-15-01:18:52PM', '2015-12-15T02:18:52Z'],
      ['2015-12-15-12:05:00AM', '2015-12-14T13:05:00Z'],
      ['2016-02-1112:50:05', '2016-02-11T01:50:05Z'],
      ['2009-01-10 12:30:00', '2009-01-10T01:30:00Z'],
    ];
    for (const [raw, utc] of cases) {
      expect(ok(raw), raw).to.deep.equal({ ok: true, value: utc, nonstandard: true });
    }
    expect(ok('2016-08-12-01:10').value).to.equal('2016-08-11T15:10:00Z'); // no seconds is standard
  });

  it('uses the zone it is given, and honours explicit offsets', () => {
    expect(ok('2024-01-15-12:00:00', 'Australia/Perth').value).to.equal('2024-01-15T04:00:00Z');
    expect(ok('2024-01-15-12:00:00', 'UTC').value).to.equal('2024-01-15T12:00:00Z');
    expect(ok('2024-01-15T12:00:00Z').value).to.equal('2024-01-15T12:00:00Z');
    expect(ok('2024-01-15T12:00:00+10:00').value).to.equal('2024-01-15T02:00:00Z');
  });

  it('turns zero dates, placeholders and nonsense into reasons, never throws', () => {
    expect(parseReaDate('0000-00-00-00:00:00', MEL)).to.include({ ok: false, code: 'zero_date' });
    expect(parseReaDate('0000-00-00', MEL)).to.include({ ok: false, code: 'zero_date' });
    expect(parseReaDate('REPLACE-THIS-VALUE', MEL)).to.include({ ok: false, code: 'placeholder_value' });
    expect(parseReaDate('2024-13-45', MEL)).to.include({ ok: false, code: 'invalid_date' });
    expect(parseReaDate('2024-02-30-10:00:00', MEL)).to.include({ ok: false, code: 'invalid_date' });
    expect(parseReaDate('2024-01-01-13:00:00PM', MEL)).to.include({ ok: false, code: 'invalid_date' });
    expect(parseReaDate('Now', MEL)).to.include({ ok: false, code: 'placeholder_value' });
  });

  it('keeps calendar dates as dates when asked', () => {
    expect(parseReaDate('2009-01-10-12:30:00', MEL, { dateOnly: true })).to.deep.equal({ ok: true, value: '2009-01-10', nonstandard: false });
  });
});
