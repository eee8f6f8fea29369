import { abandonPending, claimLane, claimNextDelivery, endpointOfDelivery, laneHasDue, releaseLane, renewLane } from '../../db/webhook-lanes.js';
import type { JobContext } from '../job-queue.js';
import { attemptDelivery, type WebhookDeps } from './deliver-webhook.js';

/** How long one turn of a lane may keep sending before it goes to the back of the queue. */
export const TURN_MS = 1000;
/** The most deliveries one turn sends. */
export const TURN_MAX = 50;
/** A lane refused because its key's other lanes are busy asks again after this. */
export const KEY_BUSY_RETRY_MS = 1000;

export interface TurnSummary {
  endpointId: string;
  status: 'sent' | 'idle' | 'busy' | 'pausing' | 'key_busy' | 'inactive';
  delivered: number;
  failed: number;
  /** Whether the lane was put back on the queue (more is due, or its key's lanes were busy). */
  again: boolean;
}

/**
 * The webhook delivery job: one turn of an endpoint's lane (docs/ingestion-internals.md, Webhook
 * deliveries). The job is queued by endpoint id, so the shared queue holds at most one job per
 * endpoint however many events wait (they wait in webhook_deliveries). A turn takes the lane (one
 * sender per endpoint; at most LANES_PER_KEY per key), then sends the lane's due deliveries in
 * order, one at a time, until none is left, one fails (the lane then pauses: the sweep brings it
 * back when the pause is over), or it has sent for TURN_MS or TURN_MAX deliveries; then it gives
 * the lane up and, if more is due, goes to the back of the queue, so every other endpoint with
 * something due gets a turn first. A worker that dies mid-turn leaves its lane and delivery
 * claimed for the length of an attempt and 30 s, after which the sweep queues the lane again and
 * the delivery is sent again (deliveries are at least once: receivers deduplicate by webhook-id).
 *
 * `id` is an endpoint id, or a delivery id (msg_…) from a job queued before lanes, which runs its
 * endpoint's lane.
 */
export async function sendLaneTurn(deps: WebhookDeps, id: string, job?: JobContext): Promise<TurnSummary> {
  const endpointId = id.startsWith('msg_') ? await endpointOfDelivery(deps.db, id) : id;
  const summary: TurnSummary = { endpointId: endpointId ?? id, status: 'idle', delivered: 0, failed: 0, again: false };
  if (!endpointId) return { ...summary, status: 'inactive' };
  const lease = Math.ceil(deps.timeoutMs / 1000) + 30;
  const lane = await claimLane(deps.db, endpointId, lease);
  if ('refused' in lane) {
    if (lane.refused === 'inactive') await abandonPending(deps.db, endpointId, 'the endpoint is disabled or deleted');
    if (lane.refused === 'key_busy' && job) {
      job.again(KEY_BUSY_RETRY_MS);
      return { ...summary, status: lane.refused, again: true };
    }
    return { ...summary, status: lane.refused };
  }
  const started = performance.now();
  let yielded = false;
  try {
    for (;;) {
      const delivery = await claimNextDelivery(deps.db, endpointId, lease);
      if (!delivery) break;
      const result = await attemptDelivery(deps, lane.claimed, delivery);
      if (!result.ok) {
        summary.failed += 1;
        break;
      }
      summary.delivered += 1;
      if (performance.now() - started >= TURN_MS || summary.delivered >= TURN_MAX) {
        yielded = true;
        break;
      }
      await renewLane(deps.db, endpointId, lease);
    }
  } finally {
    await releaseLane(deps.db, endpointId).catch((err) => deps.logger.warn({ err, endpointId }, 'could not release a webhook lane; its lease lapses'));
  }
  summary.status = summary.delivered || summary.failed ? 'sent' : 'idle';
  // A failure pauses the lane (the sweep brings it back); otherwise more due goes to the back of the queue.
  if (!summary.failed && job && (yielded || (await laneHasDue(deps.db, endpointId)))) {
    job.again(0);
    summary.again = true;
  }
  return summary;
}
