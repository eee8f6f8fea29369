import { hash } from 'node:crypto';
import { getVtimezoneComponent } from '@touch4it/ical-timezones';
import ical, { ICalCalendarMethod } from 'ical-generator';
import { DateTime } from 'luxon';
import type { CalendarEvent } from '../db/listing-calendars.js';

/**
 * A calendar's UID for an event: the same office, listing, kind and start always give the same
 * one, whichever feed (or format) carried it, so a subscribed calendar updates an event instead
 * of adding it twice (RFC 5545, 3.8.4.7).
 */
export function eventUid(event: Pick<CalendarEvent, 'office' | 'uniqueId' | 'kind' | 'start'>): string {
  const key = `${event.office}\n${event.uniqueId}\n${event.kind}\n${event.start.toISOString()}`;
  return `${hash('sha256', key, 'hex').slice(0, 32)}@listings`;
}

/**
 * An RFC 5545 calendar of open homes and auctions (ical-generator): one VEVENT each, its times in
 * the listing's zone (TZID, with a VTIMEZONE for each zone used, from @touch4it/ical-timezones),
 * the public address as its location, and a link to the listing. `listingUrl` makes that link.
 */
export function calendarText(name: string, events: CalendarEvent[], listingUrl: (office: string, uniqueId: string) => string): string {
  const calendar = ical({
    name,
    prodId: { company: 'listing-ingestion-service', product: 'open-homes', language: 'EN' },
    method: ICalCalendarMethod.PUBLISH,
    timezone: { name: null, generator: getVtimezoneComponent },
  });
  for (const event of events) {
    const what = event.kind === 'auction' ? 'Auction' : 'Open home';
    const place = event.addressLine ?? event.headline ?? `${event.office}/${event.uniqueId}`;
    const url = listingUrl(event.office, event.uniqueId);
    calendar.createEvent({
      id: eventUid(event),
      // luxon times in the listing's zone: ical-generator writes them as that zone's wall clock with its TZID.
      start: DateTime.fromJSDate(event.start, { zone: event.zone }),
      end: DateTime.fromJSDate(event.end, { zone: event.zone }),
      timezone: event.zone,
      stamp: event.updatedAt,
      lastModified: event.updatedAt,
      summary: `${what}: ${place}`,
      location: event.addressLine ?? undefined,
      description: [event.headline, url].filter(Boolean).join('\n'),
      url,
    });
  }
  return calendar.toString();
}
