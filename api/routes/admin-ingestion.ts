import { Router } from 'express';
import { changeFeedKeyStatus, createFeedKey, type KeyListQuery, listFeedKeys, setFeedKeyOffices } from '../../db/feed-keys.js';
import type { Db } from '../../db/knex.js';
import { recordAudit } from '../../db/operators.js';
import { heldListings, listQuarantine, resolveQuarantine } from '../../db/quarantine.js';
import { HttpError, notFound } from '../../lib/errors.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { officeIdsOf } from '../office-ids.js';
import { uuidParam } from '../path-params.js';
import { assertValid, assertValidQuery } from '../validators.js';

/** Operator routes for feed keys and quarantine (mounted behind the operator credential). */
export function adminIngestionRouter(deps: { db: Db }): Router {
  const router = Router();

  router.get('/v1/admin/keys', async (req, res) => {
    res.json(await listFeedKeys(deps.db, assertValidQuery<KeyListQuery>('AdminKeysQuery', req.query)));
  });

  router.put('/v1/admin/keys/:id', jsonBody('16kb'), async (req, res) => {
    const id = uuidParam(req.params.id, 'feed key');
    const body = assertValid<{ officeIds: string[] }>('KeyUpdate', req.body ?? null, 'body');
    const key = await setFeedKeyOffices(deps.db, id, officeIdsOf(body.officeIds, 'body.officeIds'));
    if (!key) throw notFound(`no feed key ${id}`);
    await recordAudit(deps.db, { actor: operatorOf(res), action: 'key.offices', target: id, details: { officeIds: key.officeIds } });
    res.json(key);
  });

  // An operator creates an already-active key (as `npm run key:create` does, but through the
  // running service: the embedded database takes one process at a time).
  router.post('/v1/admin/keys', jsonBody('16kb'), async (req, res) => {
    const body = assertValid<{ clientName: string; alertEmail: string; officeIds: string[] }>('KeyRequest', req.body ?? null, 'body');
    const { key, secret } = await createFeedKey(deps.db, {
      clientName: body.clientName.trim(),
      alertEmail: body.alertEmail,
      officeIds: officeIdsOf(body.officeIds, 'body.officeIds'),
      status: 'active',
    });
    await recordAudit(deps.db, { actor: operatorOf(res), action: 'key.create', target: key.id, details: { officeIds: key.officeIds } });
    res.status(201).json({ id: key.id, key: secret, status: key.status, officeIds: key.officeIds });
  });

  for (const [action, to] of [
    ['approve', 'active'],
    ['revoke', 'revoked'],
  ] as const) {
    router.post(`/v1/admin/keys/:id/${action}`, async (req, res) => {
      const id = uuidParam(req.params.id, 'feed key');
      const change = await changeFeedKeyStatus(deps.db, id, to);
      if ('missing' in change) throw notFound(`no feed key ${id}`);
      if ('conflict' in change) throw new HttpError(409, `feed key ${id} is ${change.conflict.status} and cannot be ${action}d`);
      await recordAudit(deps.db, { actor: operatorOf(res), action: `key.${action}`, target: id });
      res.json(change.key);
    });
  }

  router.get('/v1/admin/quarantine', async (req, res) => {
    const query = assertValidQuery<{ includeResolved?: 'true' | 'false'; sort?: string; limit: number; offset: number }>('QuarantineQuery', req.query);
    res.json(await listQuarantine(deps.db, { includeResolved: query.includeResolved === 'true', sort: query.sort, limit: query.limit, offset: query.offset }));
  });

  router.get('/v1/admin/quarantine/:id/listings', async (req, res) => {
    const id = uuidParam(req.params.id, 'quarantine item');
    const page = assertValidQuery<{ limit: number; offset: number }>('PageQuery', req.query);
    const held = await heldListings(deps.db, id, page);
    if (!held) throw notFound(`no quarantine item ${id}`);
    res.json(held);
  });

  router.post('/v1/admin/quarantine/:id/resolve', jsonBody('4kb'), async (req, res) => {
    const id = uuidParam(req.params.id, 'quarantine item');
    const body = assertValid<{ action?: 'review' | 'apply' }>('ResolveRequest', req.body ?? {}, 'body');
    const item = await resolveQuarantine(deps.db, id, body.action === 'apply');
    if (!item) throw notFound(`no quarantine item ${id}`);
    await recordAudit(deps.db, {
      actor: operatorOf(res),
      action: 'quarantine.resolve',
      target: id,
      details: { resolution: item.resolution, applied: item.appliedCount },
    });
    res.json(item);
  });

  return router;
}
