import { createFeedKey } from '../../db/feed-keys.js';
import { jsonBody } from '../middleware/json-body.js';
import { officeIdsOf } from '../office-ids.js';
import { errorResponse, json } from '../openapi-helpers.js';
import type { RouteSpec } from '../route-registry.js';
import type { KeyRequestBody } from '../schemas/ingestion.js';

/**
 * POST /v1/developer/keys (public, rate limited): a suspended key scoped to the requested
 * offices. The key is in this response only; an operator approves it before it can push.
 */
export const developerKeyRoutes: RouteSpec[] = [
  {
    method: 'post',
    path: '/v1/developer/keys',
    operationId: 'requestFeedKey',
    tag: 'ingestion',
    auth: 'none',
    summary: 'Request a feed key (created suspended; shown once)',
    description:
      'Public and rate limited per client address (KEY_REQUEST_RATE_LIMIT per hour). An operator approves the key before it can push; poll /v1/feeds/whoami to see when.',
    body: 'KeyRequest',
    responses: {
      201: { description: 'The key, shown only now', content: json('KeyCreated') },
      400: errorResponse('Invalid request'),
      429: errorResponse('Too many key requests from this address'),
      503: errorResponse('Database or job queue unavailable; nothing was accepted'),
    },
    handle: (deps, { validBody }) => [
      deps.limit('key', deps.config.keyRequestRateLimit),
      jsonBody('16kb'),
      async (req, res) => {
        const body = validBody<KeyRequestBody>(req);
        const { key, secret } = await createFeedKey(deps.db, {
          clientName: body.clientName.trim(),
          alertEmail: body.alertEmail,
          officeIds: officeIdsOf(body.officeIds, 'body.officeIds'),
          status: 'suspended',
        });
        req.log?.info({ keyId: key.id, officeIds: key.officeIds }, 'feed key requested');
        res.status(201).json({ id: key.id, key: secret, status: key.status, officeIds: key.officeIds });
      },
    ],
  },
];
