import { type OpenHome, sortedOpenHomes } from '../inspection-times.js';
import { parseReaDate } from '../reaxml/dates.js';
import type { ListingDelta } from '../types.js';
import type { ResoFields } from './reso-values.js';

/**
 * The open houses of a RESO Property record (an expanded OpenHouse collection, Data Dictionary
 * OpenHouseStartTime and OpenHouseEndTime; zone-less timestamps are read in the listing's zone)
 * as the listing's open homes. A cancelled one (OpenHouseStatus Cancelled) is left out; one
 * without a readable start and later end is left out with invalid_open_house. A RESO record is
 * whole: none leaves the listing none.
 */
export function mapResoOpenHouses(f: ResoFields, zone: string): Pick<ListingDelta, 'openHomes' | 'timeZone'> {
  const list: OpenHome[] = [];
  for (const { entry } of f.collection('OpenHouse', 'invalid_open_house')) {
    if (entry.enumeration('OpenHouseStatus') === 'cancelled') continue;
    const read = (field: string) => {
      const raw = entry.text(field);
      if (raw === null) return null;
      const result = parseReaDate(raw, zone);
      return result.ok ? result.value : null;
    };
    const start = read('OpenHouseStartTime');
    const end = read('OpenHouseEndTime');
    if (start === null || end === null || Date.parse(end) <= Date.parse(start)) {
      f.issues.warning(
        'invalid_open_house',
        `an OpenHouse needs an OpenHouseStartTime and a later OpenHouseEndTime (timestamps); got ${JSON.stringify(entry.text('OpenHouseStartTime'))} and ${JSON.stringify(entry.text('OpenHouseEndTime'))}; skipped`,
        entry.path,
      );
      continue;
    }
    list.push({ start, end });
  }
  return list.length ? { openHomes: sortedOpenHomes(list), timeZone: zone } : { openHomes: null, timeZone: null };
}
