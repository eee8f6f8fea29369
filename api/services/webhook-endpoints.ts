import type { Db } from '../../db/knex.js';
import {
  createEndpoint,
  getEndpoint,
  insertDeliveries,
  MAX_ENDPOINTS_PER_KEY,
  MAX_PREVIOUS_SECRETS,
  PREVIOUS_SECRET_HOURS,
  rotateSecret,
  SUBSCRIBABLE_EVENTS,
  updateEndpoint,
  type WebhookEndpoint,
} from '../../db/webhooks.js';
import { badRequest, HttpError, notFound } from '../../lib/errors.js';
import { checkWebhookUrl, WebhookAddressError } from '../../lib/webhook-address.js';
import type { JobQueue } from '../../workers/job-queue.js';
import { webhookPayload } from '../../workers/webhooks/webhook-events.js';

/**
 * The rules of a key's webhook endpoints, for the key itself and for operators alike. `scope` is
 * the key whose endpoints may be touched (null: an operator, any key's): another key's endpoint is
 * as invisible as a missing one.
 */
export interface WebhookEndpointDeps {
  db: Db;
  /** Where an endpoint's lane is queued when it has something to send (absent: the sweep sends it). */
  webhookQueue?: JobQueue;
  /** Receivers on private networks allowed (a test or an in-house deployment). */
  allowPrivateNetworks: boolean;
}

/** A receiver's URL as it will be called: https (or http on allowed private networks), resolving to an address it may reach; else 400. */
async function receiverUrl(deps: WebhookEndpointDeps, raw: string): Promise<string> {
  try {
    return await checkWebhookUrl(raw, deps.allowPrivateNetworks);
  } catch (err) {
    if (err instanceof WebhookAddressError) throw badRequest(`body.url: ${err.message}`);
    throw err;
  }
}

/** The endpoint with this id within the scope, or 404. */
export async function endpointIn(db: Db, id: string, scope: string | null, isId: boolean): Promise<WebhookEndpoint> {
  const endpoint = isId ? await getEndpoint(db, id, scope) : null;
  if (!endpoint) throw notFound(`no webhook endpoint ${id.slice(0, 60)}${scope ? ' for this key' : ''}`);
  return endpoint;
}

/** Registers an endpoint for a key (every subscribable event unless some are named); 409 past MAX_ENDPOINTS_PER_KEY. */
export async function registerEndpoint(
  deps: WebhookEndpointDeps,
  keyId: string,
  body: { url: string; events?: string[]; description?: string | null },
  whose: 'this key' | 'that key',
) {
  const created = await createEndpoint(deps.db, {
    keyId,
    url: await receiverUrl(deps, body.url),
    events: body.events ?? [...SUBSCRIBABLE_EVENTS],
    description: body.description ?? null,
  });
  if (!created) throw new HttpError(409, `${whose} already has ${MAX_ENDPOINTS_PER_KEY} webhook endpoints; delete one first`);
  return created;
}

/** Changes an endpoint's URL, events or description, or enables it again. */
export async function changeEndpoint(
  deps: WebhookEndpointDeps,
  endpoint: WebhookEndpoint,
  scope: string | null,
  body: { url?: string; events?: string[]; description?: string | null; enabled?: true },
) {
  return updateEndpoint(deps.db, endpoint.id, scope, {
    url: body.url === undefined ? undefined : await receiverUrl(deps, body.url),
    events: body.events,
    description: body.description,
    enable: body.enabled,
  });
}

/**
 * A new signing secret; the earlier ones go on signing for PREVIOUS_SECRET_HOURS. 429 (with when
 * to try again) while MAX_PREVIOUS_SECRETS earlier ones are still within their grace.
 */
export async function rotateEndpointSecret(db: Db, endpoint: WebhookEndpoint, scope: string | null) {
  const rotated = await rotateSecret(db, endpoint.id, scope);
  if (!rotated) throw notFound(`no webhook endpoint ${endpoint.id}`);
  if (rotated.status === 'too_many') {
    throw new HttpError(
      429,
      `this endpoint already has ${MAX_PREVIOUS_SECRETS} earlier secrets signing within their ${PREVIOUS_SECRET_HOURS}-hour grace; ` +
        `the oldest one's grace ends at ${rotated.oldestUntil}, rotate again after that`,
      { 'Retry-After': String(rotated.retryAfterS) },
    );
  }
  return { secret: rotated.secret, previousSecretValidHours: PREVIOUS_SECRET_HOURS, previousSecretsValidUntil: rotated.previousSecretsValidUntil };
}

/** A webhook.test event to an active endpoint (409 when disabled), its lane queued at once; returns its delivery id. */
export async function sendTestEvent(deps: WebhookEndpointDeps, endpoint: WebhookEndpoint): Promise<string> {
  if (endpoint.status !== 'active') throw new HttpError(409, 'the endpoint is disabled: enable it first (PATCH with {"enabled": true})');
  const sentAt = new Date().toISOString();
  const [deliveryId] = await insertDeliveries(deps.db, [
    {
      endpointId: endpoint.id,
      type: 'webhook.test',
      feedId: null,
      payload: webhookPayload({ type: 'webhook.test', data: { endpointId: endpoint.id, message: 'a test event: no feed or listing is involved', sentAt } }),
    },
  ]);
  // The endpoint's lane sends it (the sweep does, should the queue be away).
  await deps.webhookQueue?.requeue(endpoint.id).catch(() => undefined);
  return deliveryId;
}
