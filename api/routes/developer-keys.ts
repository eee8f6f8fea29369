import { type RequestHandler, Router } from 'express';
import { createFeedKey } from '../../db/feed-keys.js';
import type { Db } from '../../db/knex.js';
import { jsonBody } from '../middleware/json-body.js';
import { officeIdsOf } from '../office-ids.js';
import type { KeyRequestBody } from '../schemas/ingestion.js';
import { assertValid } from '../validators.js';

/**
 * POST /v1/developer/keys (public, rate limited): a suspended key scoped to the requested
 * offices. The key is in this response only; an operator approves it before it can push.
 */
export function developerKeysRouter(deps: { db: Db; limit: RequestHandler }): Router {
  const router = Router();
  router.post('/v1/developer/keys', deps.limit, jsonBody('16kb'), async (req, res) => {
    const body = assertValid<KeyRequestBody>('KeyRequest', req.body ?? null, 'body');
    const { key, secret } = await createFeedKey(deps.db, {
      clientName: body.clientName.trim(),
      alertEmail: body.alertEmail,
      officeIds: officeIdsOf(body.officeIds, 'body.officeIds'),
      status: 'suspended',
    });
    req.log?.info({ keyId: key.id, officeIds: key.officeIds }, 'feed key requested');
    res.status(201).json({ id: key.id, key: secret, status: key.status, officeIds: key.officeIds });
  });
  return router;
}
