import { type LoggedChange, moveCursor, type PassingReader, readAfterCursor } from '../../db/change-log.js';
import { feedOfSource } from '../../db/change-source.js';
import type { Db } from '../../db/knex.js';
import { activeEndpointsWithOffices, insertDeliveries, type NewDelivery, type OfficeEndpoint, type WebhookEventType } from '../../db/webhooks.js';
import type { Logger } from '../../lib/logger.js';
import { uniqueIdOfKey } from '../../pipeline/listing-key.js';
import type { JobQueue } from '../job-queue.js';
import { STATUS_CHANGES_PER_EVENT, type WebhookEvent, webhookPayload } from './webhook-events.js';

/** The change log reader's name (change_log_cursors). */
export const WEBHOOK_CURSOR = 'webhooks';
/** Log rows read per transaction. */
const ROWS_PER_RUN = 2_000;

/**
 * The webhook reader as the change log's numbering lets it pass over rows (db/change-log.ts,
 * sequenceChangesPassing): the kinds eventTypeOf raises an event for, and whether any active
 * endpoint of an active key could be addressed. A test holds the kinds to eventTypeOf.
 */
export const WEBHOOK_READER: PassingReader = {
  name: WEBHOOK_CURSOR,
  rows: ROWS_PER_RUN,
  kinds: ['Property:archived', 'Property:status_changed', 'Property:price_changed'],
  consumers: `SELECT EXISTS (SELECT 1 FROM webhook_endpoints e JOIN feed_keys k ON k.id = e.key_id WHERE e.status = 'active' AND k.status = 'active')`,
};

/** The listing event a log row raises, if any. */
export function eventTypeOf(change: LoggedChange): WebhookEventType | null {
  if (change.resource !== 'Property') return null;
  if (change.kind === 'archived' || (change.kind === 'status_changed' && change.newStatus === 'archived')) return 'listing.archived';
  if (change.kind === 'status_changed') return 'listing.status_changed';
  if (change.kind === 'price_changed') return 'listing.price_changed';
  return null;
}

const listingOf = (c: LoggedChange) => ({ listingKey: c.recordKey, office: c.office, uniqueId: uniqueIdOfKey(c.recordKey) });

/**
 * The events a run of log rows raises for one endpoint, in log order, one event per type and feed
 * (at most STATUS_CHANGES_PER_EVENT listings each): listing.status_changed (from, to),
 * listing.price_changed (the public price before and after: an amount the agent withholds is null)
 * and listing.archived (per office, how many).
 */
export function changeEvents(changes: LoggedChange[]): WebhookEvent[] {
  const events: WebhookEvent[] = [];
  /** The open event of a type and feed (and office, for archives), filled until it is full. */
  const open = new Map<string, { event: WebhookEvent; items: unknown[] }>();
  for (const c of changes) {
    const type = eventTypeOf(c);
    if (!type) continue;
    const feedId = feedOfSource(c.source);
    const slot = `${type}|${feedId}|${type === 'listing.archived' ? c.office : ''}`;
    let current = open.get(slot);
    if (type === 'listing.archived') {
      if (!current) {
        current = { event: { type, data: { feedId, office: c.office, archived: 0 } }, items: [] };
        open.set(slot, current);
        events.push(current.event);
      }
      (current.event.data as { archived: number }).archived += 1;
      continue;
    }
    if (!current || current.items.length >= STATUS_CHANGES_PER_EVENT) {
      current = { event: { type, data: { feedId, changes: [] } }, items: [] };
      current.event.data.changes = current.items;
      open.set(slot, current);
      events.push(current.event);
    }
    current.items.push(
      type === 'listing.status_changed' ? { ...listingOf(c), from: c.oldStatus, to: c.newStatus } : { ...listingOf(c), from: c.oldPrice, to: c.newPrice },
    );
  }
  return events;
}

/**
 * Turns the change log into listing webhooks (docs/ingestion.md, Webhooks): the rows after the
 * webhook cursor, addressed to every active endpoint of every active key whose offices include the
 * listing's office and that takes the event, stored as deliveries in the same transaction that
 * moves the cursor, so a change that rolled back raises nothing (it is not in the log) and a worker
 * that dies after a commit loses nothing (the next run takes up from the cursor). Then the
 * endpoints' lanes are queued. Returns how many deliveries were stored.
 */
export async function dispatchChangeWebhooks(deps: { db: Db; logger: Logger; queue: () => JobQueue }): Promise<number> {
  let stored = 0;
  for (;;) {
    const { read, endpoints } = await deps.db.transaction(async (trx) => {
      const changes = await readAfterCursor(trx, WEBHOOK_CURSOR, ROWS_PER_RUN);
      if (changes.length === 0) return { read: 0, endpoints: [] as string[] };
      const deliveries = addressed(await activeEndpointsWithOffices(trx), changes);
      await insertDeliveries(trx, deliveries);
      await moveCursor(trx, WEBHOOK_CURSOR, changes.at(-1)!.seq);
      stored += deliveries.length;
      return { read: changes.length, endpoints: [...new Set(deliveries.map((d) => d.endpointId))] };
    });
    for (const endpointId of endpoints)
      await deps
        .queue()
        .requeue(endpointId)
        .catch(() => undefined); // the sweep queues it
    if (read < ROWS_PER_RUN) return stored;
  }
}

/** Each endpoint's deliveries for the changes of its key's offices, in log order. */
function addressed(endpoints: OfficeEndpoint[], changes: LoggedChange[]): NewDelivery[] {
  const deliveries: NewDelivery[] = [];
  const at = new Date();
  for (const endpoint of endpoints) {
    const offices = new Set(endpoint.offices);
    const mine = changes.filter((c) => c.office !== null && offices.has(c.office));
    for (const event of changeEvents(mine)) {
      if (!endpoint.events.includes(event.type)) continue;
      deliveries.push({ endpointId: endpoint.id, type: event.type, feedId: (event.data.feedId as string | null) ?? null, payload: webhookPayload(event, at) });
    }
  }
  return deliveries;
}
