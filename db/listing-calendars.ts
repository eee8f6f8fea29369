import type { Knex } from 'knex';
import { listingKey } from '../pipeline/listing-key.js';
import type * as Row from './rows.js';

/** An open home or auction of a public listing, as a calendar shows it (docs/reads.md, Calendars). */
export interface CalendarEvent {
  office: string;
  uniqueId: string;
  kind: 'open_home' | 'auction';
  start: Date;
  end: Date;
  /** The listing's IANA zone (the times are shown in it). */
  zone: string;
  /** The public address line: the locality alone when the agent withholds the street. */
  addressLine: string | null;
  headline: string | null;
  /** When the listing last changed (the events' DTSTAMP and LAST-MODIFIED). */
  updatedAt: Date;
}

/** The most events one calendar holds (the soonest first). */
export const CALENDAR_MAX_EVENTS = 2000;

/**
 * The events not yet ended of the public listings (on the market, shown) of one listing or a
 * whole office, soonest first. The address is the public one (public_patch's addressLine, made
 * from the public form of the record: a withheld street is never in it). For one listing, null
 * when it is not public.
 */
export async function calendarEvents(db: Knex, office: string, uniqueId?: string): Promise<CalendarEvent[] | null> {
  if (uniqueId !== undefined) {
    const listing = await db('listings')
      .where({ listing_key: listingKey(office, uniqueId), is_public: true })
      .first('listing_key');
    if (!listing) return null;
  }
  const q = db('listing_events as e')
    .join('listings as l', 'l.listing_key', 'e.listing_key')
    .whereRaw('l.is_public AND e.ends_at > now()')
    .select(
      'l.office',
      'l.unique_id',
      'e.kind',
      'e.starts_at',
      'e.ends_at',
      'e.zone',
      'l.updated_at',
      db.raw("l.public_patch->>'addressLine' AS address_line"),
      db.raw("(SELECT value FROM jsonb_each_text(CASE WHEN jsonb_typeof(l.data->'headline') = 'object' THEN l.data->'headline' END) LIMIT 1) AS headline"),
    )
    .orderBy([{ column: 'e.starts_at' }, { column: 'e.listing_key' }, { column: 'e.seq' }])
    .limit(CALENDAR_MAX_EVENTS);
  if (uniqueId !== undefined) q.where('e.listing_key', listingKey(office, uniqueId));
  else q.where('e.office', office);
  const rows: (Pick<Row.Listing, 'office' | 'unique_id' | 'updated_at'> &
    Pick<Row.ListingEvent, 'kind' | 'starts_at' | 'ends_at' | 'zone'> & { address_line: string | null; headline: string | null })[] = await q;
  return rows.map((r) => ({
    office: r.office,
    uniqueId: r.unique_id,
    kind: r.kind,
    start: new Date(r.starts_at),
    end: new Date(r.ends_at),
    zone: r.zone,
    addressLine: r.address_line,
    headline: r.headline,
    updatedAt: new Date(r.updated_at),
  }));
}
