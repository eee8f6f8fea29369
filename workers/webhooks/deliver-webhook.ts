import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Db } from '../../db/knex.js';
import { queueNotification } from '../../db/notifications.js';
import { signingSecrets } from '../../db/webhooks.js';
import type { Logger } from '../../lib/logger.js';
import { isPublicAddress, publicOnlyLookup } from '../../lib/webhook-address.js';
import type { JobQueue } from '../job-queue.js';

/**
 * Seconds to wait after each failed attempt before the next: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
 * 10 h. Eight attempts over about 27.6 hours; a delivery still failing after the last is abandoned.
 */
export const RETRY_SCHEDULE_S = [5, 300, 1800, 7200, 18000, 36000, 36000];
/** The most of a failed answer's body kept in the delivery log. */
const ERROR_TEXT_MAX = 300;

export interface WebhookDeps {
  db: Db;
  logger: Logger;
  timeoutMs: number;
  allowPrivate: boolean;
  disableAfterHours: number;
  /** Where the next delivery of the same feed to the same endpoint is queued once this one is acknowledged. */
  queue(): JobQueue;
}

export type AttemptResult = { ok: true; status: number; ms: number } | { ok: false; status: number | null; ms: number; error: string };

/** One POST of a signed event; never throws (a failure is a result). */
export async function postEvent(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(host) && !isPublicAddress(host)) {
    return { ok: false, status: null, ms: 0, error: `${host} is not a public address` };
  }
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: publicOnlyLookup(options.allowPrivate),
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < ERROR_TEXT_MAX) text += chunk;
        });
        res.on('error', (err) => resolve({ ok: false, status, ms: elapsed(), error: err.message }));
        res.on('end', () => {
          if (status >= 200 && status < 300) resolve({ ok: true, status, ms: elapsed() });
          else resolve({ ok: false, status, ms: elapsed(), error: `answered ${status}${text ? `: ${text.slice(0, ERROR_TEXT_MAX)}` : ''}` });
        });
      },
    );
    req.on('error', (err) => {
      const timedOut = err.name === 'AbortError' || err.name === 'TimeoutError';
      resolve({ ok: false, status: null, ms: elapsed(), error: timedOut ? `no complete answer within ${options.timeoutMs} ms` : err.message });
    });
    req.end(body);
  });
}

/**
 * The webhook delivery job: sends one delivery's event to its endpoint, signed as Standard
 * Webhooks sets out (webhook-id, webhook-timestamp, webhook-signature: HMAC-SHA256 of
 * `id.timestamp.body`; after a rotation one more signature with each earlier secret still in its grace), and
 * records the attempt. 2xx acknowledges it; anything else (another status, a timeout, a refused
 * connection) schedules the next attempt by RETRY_SCHEDULE_S. A delivery is claimed for the
 * length of an attempt, so a sweep and a job never send it twice; one already acknowledged is
 * never sent again. A feed's events reach an endpoint in order: one waits while an earlier event
 * of the same feed to the same endpoint is still pending.
 */
export async function deliverWebhook(deps: WebhookDeps, id: string): Promise<{ id: string; status: string; attempt?: number }> {
  const { db } = deps;
  const lease = Math.ceil(deps.timeoutMs / 1000) + 30;
  const [delivery] = await db('webhook_deliveries')
    .where({ id, status: 'pending' })
    .where('next_attempt_at', '<=', db.fn.now())
    .where((q) => q.whereNull('locked_until').orWhere('locked_until', '<', db.fn.now()))
    .update({ locked_until: db.raw('now() + make_interval(secs => ?)', [lease]) })
    .returning('*');
  if (!delivery) return { id, status: 'skipped' };

  if (delivery.feed_id) {
    const earlier = await db('webhook_deliveries')
      .where({ endpoint_id: delivery.endpoint_id, feed_id: delivery.feed_id, status: 'pending' })
      .where('seq', '<', delivery.seq)
      .orderBy('seq', 'desc')
      .first('next_attempt_at');
    if (earlier) {
      // Waits for the earlier event; that one's acknowledgement queues this one.
      await db('webhook_deliveries')
        .where({ id })
        .update({ locked_until: null, next_attempt_at: db.raw('greatest(next_attempt_at, ?::timestamptz)', [earlier.next_attempt_at]) });
      return { id, status: 'waiting' };
    }
  }

  const endpoint = await db('webhook_endpoints').where({ id: delivery.endpoint_id }).first();
  if (!endpoint || endpoint.status !== 'active') {
    await db('webhook_deliveries')
      .where({ id })
      .update({ status: 'abandoned', locked_until: null, last_error: `the endpoint is ${endpoint?.status ?? 'gone'}` });
    return { id, status: 'abandoned' };
  }

  const sentAt = new Date();
  const signatures = signingSecrets(endpoint, sentAt).map((secret) => new Webhook(secret).sign(id, sentAt, delivery.payload));
  const result = await postEvent(
    endpoint.url,
    {
      'content-type': 'application/json',
      'user-agent': 'listing-service-webhooks/1',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signatures.join(' '),
    },
    delivery.payload,
    { timeoutMs: deps.timeoutMs, allowPrivate: deps.allowPrivate },
  );
  const attempt = delivery.attempts + 1;
  const logged = { attempts: attempt, last_status: result.status, last_latency_ms: result.ms, last_attempt_at: sentAt, locked_until: null };

  if (result.ok) {
    await db('webhook_deliveries')
      .where({ id })
      .update({ ...logged, status: 'delivered', delivered_at: db.fn.now(), last_error: null });
    await db('webhook_endpoints').where({ id: endpoint.id }).whereNotNull('failing_since').update({ failing_since: null });
    if (delivery.feed_id) await queueNextOfFeed(deps, endpoint.id, delivery.feed_id);
    return { id, status: 'delivered', attempt };
  }

  const retryIn = RETRY_SCHEDULE_S[attempt - 1];
  await db('webhook_deliveries')
    .where({ id })
    .update({
      ...logged,
      last_error: result.error,
      ...(retryIn === undefined ? { status: 'abandoned' } : { next_attempt_at: db.raw('now() + make_interval(secs => ?)', [retryIn]) }),
    });
  deps.logger.info({ deliveryId: id, endpointId: endpoint.id, attempt, status: result.status, error: result.error }, 'webhook delivery failed');
  await noteFailure(deps, endpoint);
  return { id, status: retryIn === undefined ? 'abandoned' : 'retrying', attempt };
}

/** Once an event of a feed is acknowledged, the next of the same feed to the same endpoint goes at once. */
async function queueNextOfFeed(deps: WebhookDeps, endpointId: string, feedId: string): Promise<void> {
  const next = await deps.db('webhook_deliveries').where({ endpoint_id: endpointId, feed_id: feedId, status: 'pending' }).orderBy('seq').first('id');
  if (!next) return;
  await deps.db('webhook_deliveries').where({ id: next.id }).update({ next_attempt_at: deps.db.fn.now() });
  await deps
    .queue()
    .requeue(next.id)
    .catch(() => undefined); // the sweep sends it
}

/**
 * An endpoint's failures start its clock (failing_since, reset by any acknowledgement). Failing
 * for disableAfterHours, it is disabled: its pending deliveries are abandoned and the key's alert
 * address is told, once.
 */
async function noteFailure(deps: WebhookDeps, endpoint: { id: string; key_id: string; url: string }): Promise<void> {
  const { db } = deps;
  await db('webhook_endpoints').where({ id: endpoint.id }).whereNull('failing_since').update({ failing_since: db.fn.now() });
  const reason = `every delivery failed for ${deps.disableAfterHours} hours`;
  const [disabled] = await db('webhook_endpoints')
    .where({ id: endpoint.id, status: 'active' })
    .where('failing_since', '<=', db.raw('now() - make_interval(secs => ?)', [deps.disableAfterHours * 3600]))
    .update({ status: 'disabled', disabled_at: db.fn.now(), disabled_reason: reason, updated_at: db.fn.now() })
    .returning(['id', 'key_id', 'url']);
  if (!disabled) return;
  await db('webhook_deliveries')
    .where({ endpoint_id: endpoint.id, status: 'pending' })
    .update({ status: 'abandoned', last_error: 'the endpoint was disabled', locked_until: null });
  deps.logger.warn({ endpointId: endpoint.id, url: endpoint.url }, 'webhook endpoint disabled after failing');
  const key = await db('feed_keys').where({ id: disabled.key_id }).first('alert_email', 'client_name');
  if (key) {
    await queueNotification(db, {
      sender: disabled.key_id,
      recipient: key.alert_email,
      kind: 'webhook_disabled',
      subject: `Webhook endpoint disabled: ${endpoint.url}`,
      body:
        `The webhook endpoint ${endpoint.url} (id ${endpoint.id}) of ${key.client_name} was disabled: ${reason}. ` +
        'Nothing more is sent to it. Fix the receiver, then turn it on again with PATCH /v1/webhooks/{id} and {"enabled": true}; ' +
        'its delivery log is at GET /v1/webhooks/{id}/deliveries.',
    });
  }
}
