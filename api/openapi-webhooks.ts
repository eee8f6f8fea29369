import { WEBHOOK_EVENTS } from '../db/webhooks.js';
import { json } from './openapi-helpers.js';
import { schemas } from './schemas/index.js';
import { WEBHOOK_EVENT_SCHEMA } from './schemas/webhook-events.js';

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
