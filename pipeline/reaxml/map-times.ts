import { type OpenHome, parseInspection, sortedOpenHomes } from '../inspection-times.js';
import type { ListingDelta } from '../types.js';
import { attr, child, childrenNamed, type XmlNode } from '../xml-node.js';
import { hasExplicitOffset } from './dates.js';
import { type MapContext, readDate } from './map-context.js';

/**
 * The auction, dateAvailable and inspections, read in the listing's zone (ctx.zone). Inspections
 * are kept as the source wrote them and, those that read as a date with a start and end time, as
 * open homes; US feeds write their dates month first. A record without an address notes the
 * zone-less times it read (delta.localTimes), to be read again in a stored listing's own zone.
 */
export function mapTimes(ctx: MapContext, node: XmlNode, delta: ListingDelta, country: string): void {
  const auction = child(node, 'auction');
  if (auction) {
    // The date attribute, or (as real feeds also send it) the element's text.
    const fromAttr = attr(auction, 'date');
    const raw = fromAttr?.trim() ? fromAttr : auction.text.trim() || undefined;
    const where = () => (fromAttr?.trim() ? `${auction.path}/@date` : auction.path);
    if (raw && fromAttr === undefined)
      ctx.issues.warning('nonstandard_auction', `auction date given as the element's text "${raw}", not its date attribute; read`, auction.path);
    delta.auction = { date: raw ? readDate(ctx, raw, where, 'auction date') : null };
    if (raw && delta.localTimes && !hasExplicitOffset(raw)) delta.localTimes.auction = raw;
  }
  const available = child(node, 'dateAvailable');
  if (available) {
    const raw = available.text.trim();
    delta.dateAvailable = raw ? readDate(ctx, raw, () => available.path, 'dateAvailable', { dateOnly: true }) : null;
  }
  const inspectionTimes = child(node, 'inspectionTimes');
  if (inspectionTimes) mapInspections(ctx, inspectionTimes, delta, country === 'US');
  // The zone the local times were read in, with the times that need it (calendars, search by day).
  // Never removed once set: a record that carries inspections but no auction keeps the stored
  // auction, which needs its zone as much.
  if (delta.openHomes !== undefined || delta.auction !== undefined) delta.timeZone = ctx.zone;
}

function mapInspections(ctx: MapContext, inspectionTimes: XmlNode, delta: ListingDelta, monthFirst: boolean): void {
  const inspections: string[] = [];
  const openHomes: OpenHome[] = [];
  for (const insp of childrenNamed(inspectionTimes, 'inspection')) {
    const text = insp.text.trim().replace(/\s+/g, ' ');
    if (!text) continue;
    inspections.push(text);
    const times = parseInspection(text, ctx.zone, { monthFirst });
    if (times) openHomes.push({ ...times, text });
    else
      ctx.issues.warning(
        'invalid_inspection',
        `inspection "${text.slice(0, 120)}" is not a date with a start and end time; kept as text, not as an open home`,
        insp.path,
      );
  }
  delta.inspections = inspections;
  delta.openHomes = openHomes.length ? sortedOpenHomes(openHomes) : null;
  if (delta.localTimes && openHomes.length) delta.localTimes.inspections = true;
}
