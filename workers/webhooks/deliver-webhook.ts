import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Db } from '../../db/knex.js';
import { queueNotification } from '../../db/notifications.js';
import { abandonPending, type ClaimedDelivery, type LaneEndpoint, recordDelivered, recordFailed } from '../../db/webhook-lanes.js';
import { signingSecrets } from '../../db/webhooks.js';
import type { Logger } from '../../lib/logger.js';
import { isPublicAddress, publicOnlyLookup } from '../../lib/webhook-address.js';

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
 * One attempt of one claimed delivery: sends its event to the endpoint, signed as Standard
 * Webhooks sets out (webhook-id, webhook-timestamp, webhook-signature: HMAC-SHA256 of
 * `id.timestamp.body`; after a rotation one more signature with each earlier secret still in its
 * grace), and records it. 2xx acknowledges it (never sent again); anything else (another status,
 * a timeout, a refused connection) schedules its next attempt by RETRY_SCHEDULE_S, or abandons it
 * after the last, and pauses the endpoint's lane (db/webhook-lanes.ts).
 */
export async function attemptDelivery(deps: WebhookDeps, endpoint: LaneEndpoint, delivery: ClaimedDelivery): Promise<AttemptResult> {
  const sentAt = new Date();
  const signatures = signingSecrets(endpoint, sentAt).map((secret) => new Webhook(secret).sign(delivery.id, sentAt, delivery.payload));
  const result = await postEvent(
    endpoint.url,
    {
      'content-type': 'application/json',
      'user-agent': 'listing-service-webhooks/1',
      'webhook-id': delivery.id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signatures.join(' '),
    },
    delivery.payload,
    { timeoutMs: deps.timeoutMs, allowPrivate: deps.allowPrivate },
  );
  const log = { status: result.status, ms: result.ms, at: sentAt };
  if (result.ok) {
    await recordDelivered(deps.db, delivery, log);
    return result;
  }
  const retryIn = RETRY_SCHEDULE_S[delivery.attempts] ?? null;
  await recordFailed(deps.db, delivery, { ...log, error: result.error }, retryIn);
  deps.logger.info(
    { deliveryId: delivery.id, endpointId: endpoint.id, attempt: delivery.attempts + 1, status: result.status, error: result.error },
    'webhook delivery failed',
  );
  await noteFailure(deps, endpoint);
  return result;
}

/**
 * An endpoint's failures start its clock (failing_since, reset by any acknowledgement). Failing
 * for disableAfterHours, it is disabled: its pending deliveries are abandoned and the key's alert
 * address is told, once.
 */
async function noteFailure(deps: WebhookDeps, endpoint: { id: string; key_id: string; url: string }): Promise<void> {
  const reason = `every delivery failed for ${deps.disableAfterHours} hours`;
  // One transaction: no reader sees the endpoint disabled with deliveries still pending, and a
  // crash cannot leave it disabled without its mail.
  const disabled = await deps.db.transaction(async (trx) => {
    const [row] = await trx('webhook_endpoints')
      .where({ id: endpoint.id, status: 'active' })
      .where('failing_since', '<=', trx.raw('now() - make_interval(secs => ?)', [deps.disableAfterHours * 3600]))
      .update({ status: 'disabled', disabled_at: trx.fn.now(), disabled_reason: reason, updated_at: trx.fn.now() })
      .returning(['id', 'key_id', 'url']);
    if (!row) return null;
    await abandonPending(trx, endpoint.id, 'the endpoint was disabled');
    const key = await trx('feed_keys').where({ id: row.key_id }).first('alert_email', 'client_name');
    if (key) {
      await queueNotification(trx, {
        sender: row.key_id,
        recipient: key.alert_email,
        kind: 'webhook_disabled',
        subject: `Webhook endpoint disabled: ${endpoint.url}`,
        body:
          `The webhook endpoint ${endpoint.url} (id ${endpoint.id}) of ${key.client_name} was disabled: ${reason}. ` +
          'Nothing more is sent to it. Fix the receiver, then turn it on again with PATCH /v1/webhooks/{id} and {"enabled": true}; ' +
          'its delivery log is at GET /v1/webhooks/{id}/deliveries.',
      });
    }
    return row;
  });
  if (disabled) deps.logger.warn({ endpointId: endpoint.id, url: endpoint.url }, 'webhook endpoint disabled after failing');
}
