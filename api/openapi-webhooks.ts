import { MAX_PREVIOUS_SECRETS, PREVIOUS_SECRET_HOURS, WEBHOOK_EVENTS } from '../db/webhooks.js';
import { errorResponse, json, operatorErrors, operatorSecurity, queryParameters, ref, uuidPath } from './openapi-helpers.js';
import { schemas } from './schemas/index.js';
import { WEBHOOK_EVENT_SCHEMA } from './schemas/webhook-events.js';

const keySecurity = [{ feedKey: [] }, { feedToken: [] }];
const keyErrors = { 401: errorResponse('Missing, wrong, suspended or revoked key'), 503: errorResponse('Database unavailable') };
const endpointId = uuidPath('id', 'The webhook endpoint');

/** The routes on one endpoint, for a key's own (/v1/webhooks) and for operators (/v1/admin/webhooks). */
function endpointPaths(base: string, who: 'key' | 'operator'): Record<string, unknown> {
  const security = who === 'key' ? keySecurity : operatorSecurity;
  const errors = who === 'key' ? keyErrors : operatorErrors;
  const missing = errorResponse(who === 'key' ? 'No such endpoint for this key' : 'No such endpoint');
  return {
    [`${base}/{id}`]: {
      get: {
        summary: 'One webhook endpoint',
        security,
        parameters: [endpointId],
        responses: { 200: { description: 'The endpoint', content: json('WebhookEndpoint') }, 404: missing, ...errors },
      },
      patch: {
        summary: 'Change the URL, events or note, or enable a disabled endpoint again',
        security,
        parameters: [endpointId],
        requestBody: { required: true, content: json('WebhookUpdate') },
        responses: {
          200: { description: 'The endpoint as changed', content: json('WebhookEndpoint') },
          400: errorResponse('Invalid body or URL'),
          404: missing,
          ...errors,
        },
      },
      delete: {
        summary: 'Delete an endpoint: nothing more is sent to it',
        security,
        parameters: [endpointId],
        responses: { 204: { description: 'Deleted; its pending deliveries are abandoned' }, 404: missing, ...errors },
      },
    },
    [`${base}/{id}/rotate-secret`]: {
      post: {
        summary: `A new signing secret, shown once; the one it replaces keeps signing beside it for ${PREVIOUS_SECRET_HOURS} hours, and so does each earlier one until its own ${PREVIOUS_SECRET_HOURS} hours end`,
        description: `At most ${MAX_PREVIOUS_SECRETS} earlier secrets sign at once: one more rotation while they all are in their grace is refused (429, Retry-After: when the oldest one stops) rather than cut an earlier grace short.`,
        security,
        parameters: [endpointId],
        responses: {
          200: { description: 'The new secret', content: json('WebhookSecret') },
          404: missing,
          429: errorResponse(`${MAX_PREVIOUS_SECRETS} earlier secrets are still in their grace; Retry-After says when the oldest one's ends`),
          ...errors,
        },
      },
    },
    [`${base}/{id}/test`]: {
      post: {
        summary: 'Send a webhook.test event to the endpoint now',
        ...(who === 'key'
          ? { description: 'A key may ask for WEBHOOK_TEST_RATE_LIMIT (30) test events an hour, over all its endpoints: past that, 429 with Retry-After.' }
          : {}),
        security,
        parameters: [endpointId],
        responses: {
          202: {
            description: 'Queued; its delivery appears in the log',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['deliveryId', 'statusUrl'],
                  properties: { deliveryId: { type: 'string' }, statusUrl: { type: 'string' } },
                },
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
      },
    },
    [`${base}/{id}/deliveries`]: {
      get: {
        summary: "The endpoint's deliveries, newest first: status, attempts, last HTTP status, latency and error",
        security,
        parameters: [endpointId, ...queryParameters('WebhookDeliveryQuery')],
        responses: {
          200: { description: 'A page of deliveries', content: json('WebhookDeliveryPage') },
          400: errorResponse('Invalid query'),
          404: missing,
          ...errors,
        },
      },
    },
  };
}

const endpointList = {
  'application/json': { schema: { type: 'object', required: ['endpoints'], properties: { endpoints: { type: 'array', items: ref('WebhookEndpoint') } } } },
};

/** Webhook endpoints: a key's own, and every key's for operators (docs/ingestion.md, Webhooks). */
export function webhookPaths(): Record<string, unknown> {
  return {
    '/v1/webhooks': {
      get: {
        summary: "This key's webhook endpoints",
        security: keySecurity,
        responses: { 200: { description: 'Newest first', content: endpointList }, ...keyErrors },
      },
      post: {
        summary: 'Register an endpoint for events of this key’s feeds; the signing secret is shown once',
        description:
          'Events are POSTed as JSON { type, timestamp, data } signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature: v1, HMAC-SHA256 of id.timestamp.body with the secret). Any 2xx within WEBHOOK_TIMEOUT_MS acknowledges; anything else is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h. An endpoint failing every delivery for 24 hours is disabled and the key’s alert address told. At most 10 endpoints per key.',
        security: keySecurity,
        requestBody: { required: true, content: json('WebhookRequest') },
        responses: {
          201: { description: 'Registered', content: json('WebhookCreated') },
          400: errorResponse('Invalid body, or a URL that is not https or not a public address'),
          409: errorResponse('The key already has 10 endpoints'),
          ...keyErrors,
        },
      },
    },
    ...endpointPaths('/v1/webhooks', 'key'),
    '/v1/admin/webhooks': {
      get: {
        summary: "Every key's webhook endpoints",
        security: operatorSecurity,
        responses: { 200: { description: 'Newest first', content: endpointList }, ...operatorErrors },
      },
      post: {
        summary: 'Register an endpoint for a key; the signing secret is shown once (hand it to the integrator)',
        security: operatorSecurity,
        requestBody: { required: true, content: json('AdminWebhookRequest') },
        responses: {
          201: { description: 'Registered', content: json('WebhookCreated') },
          400: errorResponse('Invalid body, an unknown or revoked key, or a URL that is not https or not a public address'),
          409: errorResponse('The key already has 10 endpoints'),
          ...operatorErrors,
        },
      },
    },
    ...endpointPaths('/v1/admin/webhooks', 'operator'),
  };
}

/**
 * The API description's `webhooks` section (OpenAPI 3.1): what the service POSTs to a registered
 * endpoint, one entry per event type with its payload schema and the Standard Webhooks headers, so
 * generated clients type the events a receiver handles.
 */
export function webhookEvents(): Record<string, unknown> {
  const headers = [
    {
      name: 'webhook-id',
      in: 'header',
      required: true,
      description: 'The event’s id: the same on every attempt, so deduplicate by it.',
      schema: { type: 'string' },
    },
    { name: 'webhook-timestamp', in: 'header', required: true, description: 'Seconds since 1970 when this attempt was signed.', schema: { type: 'string' } },
    {
      name: 'webhook-signature',
      in: 'header',
      required: true,
      description:
        'v1, then the base64 HMAC-SHA256 of `id.timestamp.body` keyed with the secret’s bytes after whsec_; after a rotation one more such signature for each earlier secret still in its grace, space-separated. Accept the event when any of them verifies.',
      schema: { type: 'string' },
    },
  ];
  return Object.fromEntries(
    WEBHOOK_EVENTS.map((type) => [
      type,
      {
        post: {
          operationId: `on${type.replace(/(^|[._])([a-z])/g, (_m, _sep, c: string) => c.toUpperCase())}`,
          summary: `${type}: ${(schemas.find((s) => s.$id === WEBHOOK_EVENT_SCHEMA[type]) as { description?: string }).description ?? ''}`,
          tags: ['webhooks'],
          // The receiver checks the signature headers, not an API credential.
          security: [],
          parameters: headers,
          requestBody: { required: true, content: json(WEBHOOK_EVENT_SCHEMA[type]) },
          responses: {
            '2XX': { description: 'Acknowledged (within WEBHOOK_TIMEOUT_MS, 5 s): the event is never sent again.' },
            default: { description: 'Anything else, a redirect or no answer in time: the event is tried again later (eight attempts over about 27.6 hours).' },
          },
        },
      },
    ]),
  );
}
