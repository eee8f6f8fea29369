import type { Response } from 'express';
import { recordAudit } from '../../db/operators.js';
import {
  deleteEndpoint,
  getEndpoint,
  insertDeliveries,
  listDeliveries,
  MAX_PREVIOUS_SECRETS,
  PREVIOUS_SECRET_HOURS,
  rotateSecret,
  updateEndpoint,
  type WebhookEndpoint,
} from '../../db/webhooks.js';
import { badRequest, HttpError, notFound } from '../../lib/errors.js';
import { checkWebhookUrl, WebhookAddressError } from '../../lib/webhook-address.js';
import { webhookPayload } from '../../workers/webhooks/webhook-events.js';
import { feedKeyOf } from '../auth/feed-key.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { errorResponse, json, uuidPath } from '../openapi-helpers.js';
import { isUuid } from '../path-params.js';
import type { RouteDeps } from '../route-deps.js';
import type { RouteSpec } from '../route-registry.js';

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

/** A webhook URL checked by the address rules (https, public unless WEBHOOK_ALLOW_PRIVATE_NETWORKS), or 400. */
export async function checkedUrl(deps: RouteDeps, raw: string): Promise<string> {
  try {
    return await checkWebhookUrl(raw, deps.config.webhookAllowPrivateNetworks);
  } catch (err) {
    if (err instanceof WebhookAddressError) throw badRequest(`body.url: ${err.message}`);
    throw err;
  }
}

/** The endpoint of the path's id within the request's scope, or 404. */
function endpointFinder(who: EndpointUser, deps: RouteDeps) {
  const scope = endpointScope(who);
  return async (id: string, res: Response): Promise<WebhookEndpoint> => {
    const endpoint = isUuid(id) ? await getEndpoint(deps.db, id, scope(res)) : null;
    if (!endpoint) throw notFound(`no webhook endpoint ${id.slice(0, 60)}${scope(res) ? ' for this key' : ''}`);
    return endpoint;
  };
}

/** A webhook.test event to one endpoint, queued at once; returns its delivery id. */
async function queueTest(deps: RouteDeps, endpoint: WebhookEndpoint, at: string): Promise<string[]> {
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
            const updated = await updateEndpoint(deps.db, endpoint.id, endpointScope(who)(res), {
              url: body.url === undefined ? undefined : await checkedUrl(deps, body.url),
              events: body.events,
              description: body.description,
              enable: body.enabled,
            });
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
        const rotated = await rotateSecret(deps.db, endpoint.id, endpointScope(who)(res));
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
          if (endpoint.status !== 'active') throw new HttpError(409, 'the endpoint is disabled: enable it first (PATCH with {"enabled": true})');
          const at = new Date().toISOString();
          const [deliveryId] = await queueTest(deps, endpoint, at);
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
