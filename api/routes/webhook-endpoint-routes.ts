import type { Response } from 'express';
import { recordAudit } from '../../db/operators.js';
import { deleteEndpoint, listDeliveries, MAX_PREVIOUS_SECRETS, PREVIOUS_SECRET_HOURS } from '../../db/webhooks.js';
import { feedKeyOf } from '../auth/feed-key.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { errorResponse, json, uuidPath } from '../openapi-helpers.js';
import { isUuid } from '../path-params.js';
import type { RouteDeps } from '../route-deps.js';
import type { RouteSpec } from '../route-registry.js';
import { changeEndpoint, endpointIn, rotateEndpointSecret, sendTestEvent, type WebhookEndpointDeps } from '../services/webhook-endpoints.js';

/** Who the endpoint routes serve: a key (its own endpoints, /v1/webhooks) or operators (any key's, /v1/admin/webhooks). */
export type EndpointUser = 'key' | 'operator';

type EndpointBody = { url?: string; events?: string[]; description?: string | null; enabled?: true };

/** A key's answers for a missing, wrong, suspended or revoked key, and for the database away. */
export const keyErrors = { 401: errorResponse('Missing, wrong, suspended or revoked key'), 503: errorResponse('Database unavailable') };
const endpointId = uuidPath('id', 'The webhook endpoint');

/** The key id whose endpoints a request may touch: the key's own, or null (any) for an operator. */
export const endpointScope = (who: EndpointUser) => (res: Response) => (who === 'key' ? feedKeyOf(res).id : null);

/** Records an operator's change in the audit log; a key's changes are not audited. */
export const auditEndpoint = (who: EndpointUser, deps: RouteDeps) => async (res: Response, action: string, target: string) => {
  if (who === 'operator') await recordAudit(deps.db, { actor: operatorOf(res), action, target });
};

/** What the endpoint service (services/webhook-endpoints.ts) needs of the app's dependencies. */
export const endpointDeps = (deps: RouteDeps): WebhookEndpointDeps => ({
  db: deps.db,
  webhookQueue: deps.webhookQueue,
  allowPrivateNetworks: deps.config.webhookAllowPrivateNetworks,
});

/** The endpoint of the path's id within the request's scope, or 404. */
function endpointFinder(who: EndpointUser, deps: RouteDeps) {
  const scope = endpointScope(who);
  return (id: string, res: Response) => endpointIn(deps.db, id, scope(res), isUuid(id));
}

/** A key's test events are limited (WEBHOOK_TEST_RATE_LIMIT per hour, per key); operators' are not. */
const testLimit = (who: EndpointUser, deps: RouteDeps) =>
  who === 'key' ? [deps.limit('webhook test', deps.config.webhookTestRateLimit, { per: { key: (_req, res) => feedKeyOf(res).id, who: 'for this key' } })] : [];

/** The routes reading and changing one endpoint (its id in the path), for a key's own endpoints and for operators'. */
export function endpointRoutes(base: string, who: EndpointUser): RouteSpec[] {
  const route = { tag: who === 'key' ? 'webhooks' : 'admin', auth: who === 'key' ? 'feedKeyOrHeader' : 'operator' } as const;
  const errors = who === 'key' ? keyErrors : {};
  const missing = errorResponse(who === 'key' ? 'No such endpoint for this key' : 'No such endpoint');
  const id = (name: string) => (who === 'key' ? name : `admin${name[0].toUpperCase()}${name.slice(1)}`);
  return [
    {
      ...route,
      method: 'get',
      path: `${base}/{id}`,
      operationId: id('getWebhook'),
      summary: 'One webhook endpoint',
      parameters: [endpointId],
      responses: { 200: { description: 'The endpoint', content: json('WebhookEndpoint') }, 404: missing, ...errors },
      handle: (deps) => {
        const endpointOf = endpointFinder(who, deps);
        return async (req, res) => {
          res.json(await endpointOf(String(req.params.id), res));
        };
      },
    },
    {
      ...route,
      method: 'patch',
      path: `${base}/{id}`,
      operationId: id('updateWebhook'),
      summary: 'Change the URL, events or note, or enable a disabled endpoint again',
      parameters: [endpointId],
      body: 'WebhookUpdate',
      responses: {
        200: { description: 'The endpoint as changed', content: json('WebhookEndpoint') },
        400: errorResponse('Invalid body or URL'),
        404: missing,
        ...errors,
      },
      handle: (deps, { validBody }) => {
        const endpointOf = endpointFinder(who, deps);
        const audit = auditEndpoint(who, deps);
        return [
          jsonBody('8kb'),
          async (req, res) => {
            const body = validBody<EndpointBody>(req);
            const endpoint = await endpointOf(String(req.params.id), res);
            const updated = await changeEndpoint(endpointDeps(deps), endpoint, endpointScope(who)(res), body);
            await audit(res, 'webhook.update', endpoint.id);
            res.json(updated);
          },
        ];
      },
    },
    {
      ...route,
      method: 'delete',
      path: `${base}/{id}`,
      operationId: id('deleteWebhook'),
      summary: 'Delete an endpoint: nothing more is sent to it',
      parameters: [endpointId],
      responses: { 204: { description: 'Deleted; its pending deliveries are abandoned' }, 404: missing, ...errors },
      handle: (deps) => {
        const endpointOf = endpointFinder(who, deps);
        const audit = auditEndpoint(who, deps);
        return async (req, res) => {
          const endpoint = await endpointOf(String(req.params.id), res);
          await deleteEndpoint(deps.db, endpoint.id, endpointScope(who)(res));
          await audit(res, 'webhook.delete', endpoint.id);
          res.status(204).end();
        };
      },
    },
    rotateRoute(base, who, route, missing, errors),
    testRoute(base, who, route, missing, errors),
    deliveriesRoute(base, who, route, missing, errors),
  ];
}

type Shared = Pick<RouteSpec, 'tag' | 'auth'>;

/** POST {base}/{id}/rotate-secret: a new signing secret, the earlier ones signing beside it for their grace. */
function rotateRoute(base: string, who: EndpointUser, route: Shared, missing: unknown, errors: Record<string, unknown>): RouteSpec {
  return {
    ...route,
    method: 'post',
    path: `${base}/{id}/rotate-secret`,
    operationId: who === 'key' ? 'rotateWebhookSecret' : 'adminRotateWebhookSecret',
    summary: `A new signing secret, shown once; the one it replaces keeps signing beside it for ${PREVIOUS_SECRET_HOURS} hours, and so does each earlier one until its own ${PREVIOUS_SECRET_HOURS} hours end`,
    description: `At most ${MAX_PREVIOUS_SECRETS} earlier secrets sign at once: one more rotation while they all are in their grace is refused (429, Retry-After: when the oldest one stops) rather than cut an earlier grace short.`,
    parameters: [endpointId],
    responses: {
      200: { description: 'The new secret', content: json('WebhookSecret') },
      404: missing,
      429: errorResponse(`${MAX_PREVIOUS_SECRETS} earlier secrets are still in their grace; Retry-After says when the oldest one's ends`),
      ...errors,
    },
    handle: (deps) => {
      const endpointOf = endpointFinder(who, deps);
      const audit = auditEndpoint(who, deps);
      return async (req, res) => {
        const endpoint = await endpointOf(String(req.params.id), res);
        const rotated = await rotateEndpointSecret(deps.db, endpoint, endpointScope(who)(res));
        await audit(res, 'webhook.rotate_secret', endpoint.id);
        res.json(rotated);
      };
    },
  };
}

/** POST {base}/{id}/test: a webhook.test event to the endpoint now. */
function testRoute(base: string, who: EndpointUser, route: Shared, missing: unknown, errors: Record<string, unknown>): RouteSpec {
  return {
    ...route,
    method: 'post',
    path: `${base}/{id}/test`,
    operationId: who === 'key' ? 'testWebhook' : 'adminTestWebhook',
    summary: 'Send a webhook.test event to the endpoint now',
    ...(who === 'key'
      ? { description: 'A key may ask for WEBHOOK_TEST_RATE_LIMIT (30) test events an hour, over all its endpoints: past that, 429 with Retry-After.' }
      : {}),
    parameters: [endpointId],
    responses: {
      202: {
        description: 'Queued; its delivery appears in the log',
        content: {
          'application/json': {
            schema: { type: 'object', required: ['deliveryId', 'statusUrl'], properties: { deliveryId: { type: 'string' }, statusUrl: { type: 'string' } } },
          },
        },
      },
      404: missing,
      409: errorResponse('The endpoint is disabled'),
      ...(who === 'key'
        ? { 429: errorResponse('This key asked for WEBHOOK_TEST_RATE_LIMIT test events within the hour; Retry-After says when to ask again') }
        : {}),
      ...errors,
    },
    handle: (deps) => {
      const endpointOf = endpointFinder(who, deps);
      return [
        ...testLimit(who, deps),
        async (req, res) => {
          const endpoint = await endpointOf(String(req.params.id), res);
          const deliveryId = await sendTestEvent(endpointDeps(deps), endpoint);
          res.status(202).json({ deliveryId, statusUrl: `${base}/${endpoint.id}/deliveries` });
        },
      ];
    },
  };
}

/** GET {base}/{id}/deliveries: the endpoint's delivery log. */
function deliveriesRoute(base: string, who: EndpointUser, route: Shared, missing: unknown, errors: Record<string, unknown>): RouteSpec {
  return {
    ...route,
    method: 'get',
    path: `${base}/{id}/deliveries`,
    operationId: who === 'key' ? 'listWebhookDeliveries' : 'adminListWebhookDeliveries',
    summary: "The endpoint's deliveries, newest first: status, attempts, last HTTP status, latency and error",
    parameters: [endpointId],
    query: 'WebhookDeliveryQuery',
    responses: {
      200: { description: 'A page of deliveries', content: json('WebhookDeliveryPage') },
      400: errorResponse('Invalid query'),
      404: missing,
      ...errors,
    },
    handle: (deps, { validQuery }) => {
      const endpointOf = endpointFinder(who, deps);
      return async (req, res) => {
        const query = validQuery<{ status?: string; limit: number; offset: number }>(req);
        const endpoint = await endpointOf(String(req.params.id), res);
        res.json(await listDeliveries(deps.db, endpoint.id, query));
      };
    },
  };
}
