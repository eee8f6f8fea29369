import { type RequestHandler, type Response, Router } from 'express';
import type { Db } from '../../db/knex.js';
import { recordAudit } from '../../db/operators.js';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  insertDeliveries,
  listDeliveries,
  listEndpoints,
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
import { feedKeyOf, requireFeedKey } from '../auth/feed-key.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { isUuid } from '../path-params.js';
import { assertValid, assertValidQuery } from '../validators.js';

export interface WebhooksDeps {
  db: Db;
  /** Where the endpoint of a test event is queued (absent: the sweep sends it). */
  webhookQueue?: JobQueue;
  allowPrivateNetworks: boolean;
  /** Limits a key's test events (WEBHOOK_TEST_RATE_LIMIT per hour); operators' are not limited. */
  testLimit?: RequestHandler;
}

type EndpointBody = { url?: string; events?: string[]; description?: string | null; enabled?: true };

/**
 * The routes both a key (its own endpoints) and operators (any key's) use: `scope` is the key id
 * whose endpoints may be touched, null for operators.
 */
function endpointRoutes(
  router: Router,
  base: string,
  deps: WebhooksDeps,
  scope: (res: Response) => string | null,
  audit: (res: Response, action: string, target: string) => Promise<void>,
  testLimit: RequestHandler[],
) {
  const { db } = deps;
  const url = async (raw: string) => {
    try {
      return await checkWebhookUrl(raw, deps.allowPrivateNetworks);
    } catch (err) {
      if (err instanceof WebhookAddressError) throw badRequest(`body.url: ${err.message}`);
      throw err;
    }
  };
  const endpointOf = async (id: string, res: Response): Promise<WebhookEndpoint> => {
    const endpoint = isUuid(id) ? await getEndpoint(db, id, scope(res)) : null;
    if (!endpoint) throw notFound(`no webhook endpoint ${id.slice(0, 60)}${scope(res) ? ' for this key' : ''}`);
    return endpoint;
  };

  router.get(`${base}/:id`, async (req, res) => {
    res.json(await endpointOf(String(req.params.id), res));
  });

  router.patch(`${base}/:id`, jsonBody('8kb'), async (req, res) => {
    const body = assertValid<EndpointBody>('WebhookUpdate', req.body ?? null, 'body');
    const endpoint = await endpointOf(String(req.params.id), res);
    const updated = await updateEndpoint(db, endpoint.id, scope(res), {
      url: body.url === undefined ? undefined : await url(body.url),
      events: body.events,
      description: body.description,
      enable: body.enabled,
    });
    await audit(res, 'webhook.update', endpoint.id);
    res.json(updated);
  });

  router.delete(`${base}/:id`, async (req, res) => {
    const endpoint = await endpointOf(String(req.params.id), res);
    await deleteEndpoint(db, endpoint.id, scope(res));
    await audit(res, 'webhook.delete', endpoint.id);
    res.status(204).end();
  });

  router.post(`${base}/:id/rotate-secret`, async (req, res) => {
    const endpoint = await endpointOf(String(req.params.id), res);
    const rotated = await rotateSecret(db, endpoint.id, scope(res));
    if (!rotated) throw notFound(`no webhook endpoint ${endpoint.id}`);
    if (rotated.status === 'too_many') {
      throw new HttpError(
        429,
        `this endpoint already has ${MAX_PREVIOUS_SECRETS} earlier secrets signing within their ${PREVIOUS_SECRET_HOURS}-hour grace; ` +
          `the oldest one's grace ends at ${rotated.oldestUntil}, rotate again after that`,
        { 'Retry-After': String(rotated.retryAfterS) },
      );
    }
    await audit(res, 'webhook.rotate_secret', endpoint.id);
    res.json({ secret: rotated.secret, previousSecretValidHours: PREVIOUS_SECRET_HOURS, previousSecretsValidUntil: rotated.previousSecretsValidUntil });
  });

  router.post(`${base}/:id/test`, ...testLimit, async (req, res) => {
    const endpoint = await endpointOf(String(req.params.id), res);
    if (endpoint.status !== 'active') throw new HttpError(409, 'the endpoint is disabled: enable it first (PATCH with {"enabled": true})');
    const at = new Date().toISOString();
    const [deliveryId] = await queueTest(deps, endpoint, at);
    res.status(202).json({ deliveryId, statusUrl: `${base}/${endpoint.id}/deliveries` });
  });

  router.get(`${base}/:id/deliveries`, async (req, res) => {
    const query = assertValidQuery<{ status?: string; limit: number; offset: number }>('WebhookDeliveryQuery', req.query);
    const endpoint = await endpointOf(String(req.params.id), res);
    res.json(await listDeliveries(db, endpoint.id, query));
  });

  return { url };
}

/** A webhook.test event to one endpoint, queued at once; returns its delivery id. */
async function queueTest(deps: WebhooksDeps, endpoint: WebhookEndpoint, at: string): Promise<string[]> {
  const ids = await insertDeliveries(deps.db, [
    {
      endpointId: endpoint.id,
      type: 'webhook.test',
      feedId: null,
      payload: webhookPayload({ type: 'webhook.test', data: { endpointId: endpoint.id, message: 'a test event: no feed or listing is involved', sentAt: at } }),
    },
  ]);
  // The endpoint's lane sends it (the sweep does, should the queue be away).
  await deps.webhookQueue?.requeue(endpoint.id).catch(() => undefined);
  return ids;
}

/** A key's own webhook endpoints: /v1/webhooks (docs/ingestion.md, Webhooks). */
export function webhooksRouter(deps: WebhooksDeps): Router {
  const router = Router();
  router.use('/v1/webhooks', requireFeedKey(deps.db, { allowSuspended: false, allowHeaderToken: true }));
  const keyScope = (res: Response) => feedKeyOf(res).id;

  router.get('/v1/webhooks', async (_req, res) => {
    res.json({ endpoints: await listEndpoints(deps.db, keyScope(res)) });
  });

  const { url } = endpointRoutes(router, '/v1/webhooks', deps, keyScope, async () => undefined, deps.testLimit ? [deps.testLimit] : []);

  router.post('/v1/webhooks', jsonBody('8kb'), async (req, res) => {
    const body = assertValid<{ url: string; events?: string[]; description?: string | null }>('WebhookRequest', req.body ?? null, 'body');
    const created = await createEndpoint(deps.db, {
      keyId: keyScope(res),
      url: await url(body.url),
      events: body.events ?? [...SUBSCRIBABLE_EVENTS],
      description: body.description ?? null,
    });
    if (!created) throw new HttpError(409, `this key already has ${MAX_ENDPOINTS_PER_KEY} webhook endpoints; delete one first`);
    res.status(201).location(`/v1/webhooks/${created.endpoint.id}`).json(created);
  });

  return router;
}

/** Every key's webhook endpoints, for operators: /v1/admin/webhooks (mounted behind the operator credential). */
export function adminWebhooksRouter(deps: WebhooksDeps): Router {
  const router = Router();
  const audit = (res: Response, action: string, target: string) => recordAudit(deps.db, { actor: operatorOf(res), action, target });

  router.get('/v1/admin/webhooks', async (_req, res) => {
    res.json({ endpoints: await listEndpoints(deps.db, null) });
  });

  const { url } = endpointRoutes(router, '/v1/admin/webhooks', deps, () => null, audit, []);

  router.post('/v1/admin/webhooks', jsonBody('8kb'), async (req, res) => {
    const body = assertValid<{ keyId: string; url: string; events?: string[]; description?: string | null }>('AdminWebhookRequest', req.body ?? null, 'body');
    const key = await deps.db('feed_keys').where({ id: body.keyId }).whereNot({ status: 'revoked' }).first('id');
    if (!key) throw badRequest(`body.keyId: no feed key ${body.keyId} (or it is revoked)`);
    const created = await createEndpoint(deps.db, {
      keyId: body.keyId,
      url: await url(body.url),
      events: body.events ?? [...SUBSCRIBABLE_EVENTS],
      description: body.description ?? null,
    });
    if (!created) throw new HttpError(409, `that key already has ${MAX_ENDPOINTS_PER_KEY} webhook endpoints; delete one first`);
    await audit(res, 'webhook.create', created.endpoint.id);
    res.status(201).location(`/v1/admin/webhooks/${created.endpoint.id}`).json(created);
  });

  return router;
}
