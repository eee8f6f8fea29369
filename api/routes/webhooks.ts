import { isUsableFeedKey } from '../../db/feed-keys.js';
import { recordAudit } from '../../db/operators.js';
import { listEndpoints } from '../../db/webhooks.js';
import { badRequest } from '../../lib/errors.js';
import { feedKeyOf } from '../auth/feed-key.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { errorResponse, json, ref } from '../openapi-helpers.js';
import type { RouteSpec } from '../route-registry.js';
import { registerEndpoint } from '../services/webhook-endpoints.js';
import { endpointDeps, endpointRoutes, keyErrors } from './webhook-endpoint-routes.js';

const endpointList = {
  'application/json': { schema: { type: 'object', required: ['endpoints'], properties: { endpoints: { type: 'array', items: ref('WebhookEndpoint') } } } },
};

/** A key's own webhook endpoints: /v1/webhooks (docs/ingestion.md, Webhooks), all behind the key's check. */
export const webhookRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/webhooks',
    operationId: 'listWebhooks',
    tag: 'webhooks',
    auth: 'feedKeyOrHeader',
    summary: "This key's webhook endpoints",
    responses: { 200: { description: 'Newest first', content: endpointList }, ...keyErrors },
    handle:
      ({ db }) =>
      async (_req, res) => {
        res.json({ endpoints: await listEndpoints(db, feedKeyOf(res).id) });
      },
  },
  ...endpointRoutes('/v1/webhooks', 'key'),
  {
    method: 'post',
    path: '/v1/webhooks',
    operationId: 'createWebhook',
    tag: 'webhooks',
    auth: 'feedKeyOrHeader',
    summary: 'Register an endpoint for events of this key’s feeds; the signing secret is shown once',
    description:
      'Events are POSTed as JSON { type, timestamp, data } signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature: v1, HMAC-SHA256 of id.timestamp.body with the secret). Any 2xx within WEBHOOK_TIMEOUT_MS acknowledges; anything else is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h. An endpoint failing every delivery for 24 hours is disabled and the key’s alert address told. At most 10 endpoints per key.',
    body: 'WebhookRequest',
    responses: {
      201: { description: 'Registered', content: json('WebhookCreated') },
      400: errorResponse('Invalid body, or a URL that is not https or not a public address'),
      409: errorResponse('The key already has 10 endpoints'),
      ...keyErrors,
    },
    handle: (deps, { validBody }) => [
      jsonBody('8kb'),
      async (req, res) => {
        const body = validBody<{ url: string; events?: string[]; description?: string | null }>(req);
        const created = await registerEndpoint(endpointDeps(deps), feedKeyOf(res).id, body, 'this key');
        res.status(201).location(`/v1/webhooks/${created.endpoint.id}`).json(created);
      },
    ],
  },
];

/** Every key's webhook endpoints, for operators: /v1/admin/webhooks. */
export const adminWebhookRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/admin/webhooks',
    operationId: 'adminListWebhooks',
    tag: 'admin',
    auth: 'operator',
    summary: "Every key's webhook endpoints",
    responses: { 200: { description: 'Newest first', content: endpointList } },
    handle:
      ({ db }) =>
      async (_req, res) => {
        res.json({ endpoints: await listEndpoints(db, null) });
      },
  },
  ...endpointRoutes('/v1/admin/webhooks', 'operator'),
  {
    method: 'post',
    path: '/v1/admin/webhooks',
    operationId: 'adminCreateWebhook',
    tag: 'admin',
    auth: 'operator',
    summary: 'Register an endpoint for a key; the signing secret is shown once (hand it to the integrator)',
    body: 'AdminWebhookRequest',
    responses: {
      201: { description: 'Registered', content: json('WebhookCreated') },
      400: errorResponse('Invalid body, an unknown or revoked key, or a URL that is not https or not a public address'),
      409: errorResponse('The key already has 10 endpoints'),
    },
    handle: (deps, { validBody }) => [
      jsonBody('8kb'),
      async (req, res) => {
        const body = validBody<{ keyId: string; url: string; events?: string[]; description?: string | null }>(req);
        if (!(await isUsableFeedKey(deps.db, body.keyId))) throw badRequest(`body.keyId: no feed key ${body.keyId} (or it is revoked)`);
        const created = await registerEndpoint(endpointDeps(deps), body.keyId, body, 'that key');
        await recordAudit(deps.db, { actor: operatorOf(res), action: 'webhook.create', target: created.endpoint.id });
        res.status(201).location(`/v1/admin/webhooks/${created.endpoint.id}`).json(created);
      },
    ],
  },
];
