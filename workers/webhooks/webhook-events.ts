import type { FeedEvent } from '../../db/feed-events.js';
import type { Db } from '../../db/knex.js';
import { insertDeliveries, type KeyEndpoint, type NewDelivery, subscribedEndpoints, type WebhookEventType } from '../../db/webhooks.js';
import type { FeedOutcome } from '../../lib/feed-outcome.js';
import type { Logger } from '../../lib/logger.js';
import type { IngestionResult } from '../ingest/ingest-feed.js';
import type { JobQueue } from '../job-queue.js';

/** An event before it is addressed to endpoints: its type and data (ids and counts, never listing content). */
export interface WebhookEvent {
  type: WebhookEventType;
  data: Record<string, unknown>;
}

/** The most status changes one listing.status_changed event carries; a feed with more raises several. */
export const STATUS_CHANGES_PER_EVENT = 500;

/**
 * The event a finished feed raises: one of feed.completed (ok, with_invalid), feed.failed
 * (not_well_formed, failed) or feed.quarantined (tripped: the circuit breaker held the archive).
 * The listings it changed raise their own events from the change log (change-webhooks.ts),
 * queued before this one.
 */
export function feedWebhookEvents(event: FeedEvent, outcome: FeedOutcome, result: IngestionResult | null): WebhookEvent[] {
  const events: WebhookEvent[] = [];
  const type: WebhookEventType = outcome === 'tripped' ? 'feed.quarantined' : outcome === 'ok' || outcome === 'with_invalid' ? 'feed.completed' : 'feed.failed';
  const errors = result?.issues.filter((i) => i.level === 'error').length ?? 0;
  events.push({
    type,
    data: {
      feedId: event.id,
      outcome,
      mode: event.mode,
      format: event.format,
      officeScope: event.officeScope,
      counts: result?.counts ?? null,
      summary: result?.summary ?? null,
      issueCounts: result ? { errors, warnings: result.issues.length - errors } : null,
      ...(type === 'feed.quarantined'
        ? {
            quarantine: (result?.reconcile?.offices ?? [])
              .filter((o) => o.tripped)
              .map((o) => ({ office: o.office, quarantineId: o.quarantineId, held: o.absent })),
          }
        : {}),
      statusUrl: `/v1/feeds/${event.id}`,
    },
  });
  return events;
}

/** The JSON an endpoint receives: Standard Webhooks' { type, timestamp, data }. */
export const webhookPayload = (e: WebhookEvent, at = new Date()): string => JSON.stringify({ type: e.type, timestamp: at.toISOString(), data: e.data });

/**
 * Addresses a feed's events to its key's subscribed endpoints (of `keyEndpoints` when the caller
 * has read them, else read here), stores the deliveries and queues
 * the endpoints' lanes. Never fails the caller (ingestion goes on whatever happens here): a delivery stored but not
 * queued is sent by the sweep, and a failure to store is logged.
 */
export async function queueWebhookEvents(
  deps: { db: Db; logger: Logger; queue: () => JobQueue },
  keyId: string | null,
  feedId: string | null,
  events: WebhookEvent[],
  keyEndpoints?: KeyEndpoint[],
): Promise<number> {
  if (!keyId || events.length === 0) return 0;
  try {
    const deliveries: NewDelivery[] = [];
    const at = new Date();
    for (const e of events) {
      const subscribed = keyEndpoints
        ? keyEndpoints.filter((endpoint) => endpoint.events.includes(e.type)).map((endpoint) => endpoint.id)
        : await subscribedEndpoints(deps.db, keyId, e.type);
      for (const endpointId of subscribed) deliveries.push({ endpointId, type: e.type, feedId, payload: webhookPayload(e, at) });
    }
    const ids = await insertDeliveries(deps.db, deliveries);
    // One job per endpoint (its lane), which sends its deliveries in order.
    for (const endpointId of new Set(deliveries.map((d) => d.endpointId)))
      await deps
        .queue()
        .requeue(endpointId)
        .catch(() => undefined); // the sweep queues it
    return ids.length;
  } catch (err) {
    deps.logger.error({ err, feedId }, 'webhook events could not be stored; the feed is unaffected');
    return 0;
  }
}
