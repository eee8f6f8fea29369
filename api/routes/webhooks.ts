import { type RequestHandler, type Response, Router } from 'express';
import { isUsableFeedKey } from '../../db/feed-keys.js';
import { recordAudit } from '../../db/operators.js';
import { deleteEndpoint, listDeliveries, listEndpoints } from '../../db/webhooks.js';
import { badRequest } from '../../lib/errors.js';
import { feedKeyOf, requireFeedKey } from '../auth/feed-key.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { isUuid } from '../path-params.js';
import { changeEndpoint, endpointIn, registerEndpoint, rotateEndpointSecret, sendTestEvent, type WebhookEndpointDeps } from '../services/webhook-endpoints.js';
import { assertValid, assertValidQuery } from '../validators.js';

export interface WebhooksDeps extends WebhookEndpointDeps {
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
): void {
  const { db } = deps;
  const endpointOf = (id: string, res: Response) => endpointIn(db, id, scope(res), isUuid(id));

  router.get(`${base}/:id`, async (req, res) => {
    res.json(await endpointOf(String(req.params.id), res));
  });

  router.patch(`${base}/:id`, jsonBody('8kb'), async (req, res) => {
    const body = assertValid<EndpointBody>('WebhookUpdate', req.body ?? null, 'body');
    const endpoint = await endpointOf(String(req.params.id), res);
    const updated = await changeEndpoint(deps, endpoint, scope(res), body);
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
    const rotated = await rotateEndpointSecret(db, endpoint, scope(res));
    await audit(res, 'webhook.rotate_secret', endpoint.id);
    res.json(rotated);
  });

  router.post(`${base}/:id/test`, ...testLimit, async (req, res) => {
    const endpoint = await endpointOf(String(req.params.id), res);
    const deliveryId = await sendTestEvent(deps, endpoint);
    res.status(202).json({ deliveryId, statusUrl: `${base}/${endpoint.id}/deliveries` });
  });

  router.get(`${base}/:id/deliveries`, async (req, res) => {
    const query = assertValidQuery<{ status?: string; limit: number; offset: number }>('WebhookDeliveryQuery', req.query);
    const endpoint = await endpointOf(String(req.params.id), res);
    res.json(await listDeliveries(db, endpoint.id, query));
  });
}

/** A key's own webhook endpoints: /v1/webhooks (docs/ingestion.md, Webhooks). */
export function webhooksRouter(deps: WebhooksDeps): Router {
  const router = Router();
  router.use('/v1/webhooks', requireFeedKey(deps.db, { allowSuspended: false, allowHeaderToken: true }));
  const keyScope = (res: Response) => feedKeyOf(res).id;

  router.get('/v1/webhooks', async (_req, res) => {
    res.json({ endpoints: await listEndpoints(deps.db, keyScope(res)) });
  });

  endpointRoutes(router, '/v1/webhooks', deps, keyScope, async () => undefined, deps.testLimit ? [deps.testLimit] : []);

  router.post('/v1/webhooks', jsonBody('8kb'), async (req, res) => {
    const body = assertValid<{ url: string; events?: string[]; description?: string | null }>('WebhookRequest', req.body ?? null, 'body');
    const created = await registerEndpoint(deps, keyScope(res), body, 'this key');
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

  endpointRoutes(router, '/v1/admin/webhooks', deps, () => null, audit, []);

  router.post('/v1/admin/webhooks', jsonBody('8kb'), async (req, res) => {
    const body = assertValid<{ keyId: string; url: string; events?: string[]; description?: string | null }>('AdminWebhookRequest', req.body ?? null, 'body');
    if (!(await isUsableFeedKey(deps.db, body.keyId))) throw badRequest(`body.keyId: no feed key ${body.keyId} (or it is revoked)`);
    const created = await registerEndpoint(deps, body.keyId, body, 'that key');
    await audit(res, 'webhook.create', created.endpoint.id);
    res.status(201).location(`/v1/admin/webhooks/${created.endpoint.id}`).json(created);
  });

  return router;
}
