import { changeFeedKeyStatus, createFeedKey, type KeyListQuery, listFeedKeys, setFeedKeyOffices } from '../../db/feed-keys.js';
import { recordAudit } from '../../db/operators.js';
import { heldListings, listQuarantine, resolveQuarantine } from '../../db/quarantine.js';
import { HttpError, notFound } from '../../lib/errors.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { officeIdsOf } from '../office-ids.js';
import { errorResponse, json, uuidPath } from '../openapi-helpers.js';
import { uuidParam } from '../path-params.js';
import type { RouteSpec } from '../route-registry.js';
import { assertValid } from '../validators.js';

/** Operator routes for feed keys and quarantine (mounted behind the operator credential). */
/** The status a key action leaves a key in. */
const KEY_STATUS_AFTER = { approve: 'active', revoke: 'revoked' } as const;

export const adminIngestionRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/admin/keys',
    operationId: 'adminListKeys',
    tag: 'admin',
    auth: 'operator',
    summary: 'Feed keys (never the secrets), found, sorted and paged, each with its newest feed and last use',
    query: 'AdminKeysQuery',
    responses: {
      200: { description: 'A page of keys and the total', content: json('FeedKeyPage') },
      400: errorResponse('Invalid query'),
    },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        res.json(await listFeedKeys(db, validQuery<KeyListQuery>(req)));
      },
  },
  {
    method: 'put',
    path: '/v1/admin/keys/{id}',
    operationId: 'adminUpdateKey',
    tag: 'admin',
    auth: 'operator',
    summary: 'Change the offices a key may write (the list is replaced; listings already stored are kept)',
    parameters: [uuidPath('id', 'Feed key id')],
    body: 'KeyUpdate',
    responses: {
      200: { description: 'The key after the change', content: json('FeedKey') },
      400: errorResponse('Invalid body, or an office id that is not one'),
      404: errorResponse('Unknown key'),
    },
    handle: ({ db }, { validBody }) => [
      jsonBody('16kb'),
      async (req, res) => {
        const id = uuidParam(req.params.id, 'feed key');
        const body = validBody<{ officeIds: string[] }>(req);
        const key = await setFeedKeyOffices(db, id, officeIdsOf(body.officeIds, 'body.officeIds'));
        if (!key) throw notFound(`no feed key ${id}`);
        await recordAudit(db, { actor: operatorOf(res), action: 'key.offices', target: id, details: { officeIds: key.officeIds } });
        res.json(key);
      },
    ],
  },
  // An operator creates an already-active key (as `npm run key:create` does, but through the
  // running service: the embedded database takes one process at a time).
  {
    method: 'post',
    path: '/v1/admin/keys',
    operationId: 'adminCreateKey',
    tag: 'admin',
    auth: 'operator',
    summary: "Create an already-active key and show its secret once (the running service's way to do what npm run key:create does)",
    body: 'KeyRequest',
    responses: {
      201: { description: 'The key; its secret is shown only here', content: json('KeyCreated') },
      400: errorResponse('Invalid body'),
    },
    handle: ({ db }, { validBody }) => [
      jsonBody('16kb'),
      async (req, res) => {
        const body = validBody<{ clientName: string; alertEmail: string; officeIds: string[] }>(req);
        const { key, secret } = await createFeedKey(db, {
          clientName: body.clientName.trim(),
          alertEmail: body.alertEmail,
          officeIds: officeIdsOf(body.officeIds, 'body.officeIds'),
          status: 'active',
        });
        await recordAudit(db, { actor: operatorOf(res), action: 'key.create', target: key.id, details: { officeIds: key.officeIds } });
        res.status(201).json({ id: key.id, key: secret, status: key.status, officeIds: key.officeIds });
      },
    ],
  },
  ...(['approve', 'revoke'] as const).map(
    (action): RouteSpec => ({
      method: 'post',
      path: `/v1/admin/keys/{id}/${action}`,
      operationId: action === 'approve' ? 'adminApproveKey' : 'adminRevokeKey',
      tag: 'admin',
      auth: 'operator',
      summary: action === 'approve' ? 'Approve a suspended key (it can push from now on)' : 'Revoke a key (401 from now on)',
      parameters: [uuidPath('id', 'Feed key id')],
      responses: {
        200: { description: 'The key after the change', content: json('FeedKey') },
        404: errorResponse('Unknown key'),
        409: errorResponse('A revoked key cannot be approved'),
      },
      handle:
        ({ db }) =>
        async (req, res) => {
          const id = uuidParam(req.params.id, 'feed key');
          const change = await changeFeedKeyStatus(db, id, KEY_STATUS_AFTER[action]);
          if ('missing' in change) throw notFound(`no feed key ${id}`);
          if ('conflict' in change) throw new HttpError(409, `feed key ${id} is ${change.conflict.status} and cannot be ${action}d`);
          await recordAudit(db, { actor: operatorOf(res), action: `key.${action}`, target: id });
          res.json(change.key);
        },
    }),
  ),
  {
    method: 'get',
    path: '/v1/admin/quarantine',
    operationId: 'adminListQuarantine',
    tag: 'admin',
    auth: 'operator',
    summary: 'Circuit-breaker trips awaiting review',
    query: 'QuarantineQuery',
    responses: {
      200: {
        description: 'A page of items, newest first, and the total',
        content: json('QuarantinePage'),
      },
      400: errorResponse('Invalid query'),
    },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        const query = validQuery<{ includeResolved?: 'true' | 'false'; sort?: string; limit: number; offset: number }>(req);
        res.json(await listQuarantine(db, { includeResolved: query.includeResolved === 'true', sort: query.sort, limit: query.limit, offset: query.offset }));
      },
  },
  {
    method: 'get',
    path: '/v1/admin/quarantine/{id}/listings',
    operationId: 'adminListHeldListings',
    tag: 'admin',
    auth: 'operator',
    summary: 'Every listing a circuit-breaker trip would archive, in the order it recorded them, each as it is now',
    parameters: [uuidPath('id', 'Quarantine item id')],
    query: 'PageQuery',
    responses: {
      200: { description: 'A page of the held listings', content: json('HeldListingPage') },
      400: errorResponse('Invalid query'),
      404: errorResponse('Unknown item'),
    },
    handle:
      ({ db }, { validQuery }) =>
      async (req, res) => {
        const id = uuidParam(req.params.id, 'quarantine item');
        const page = validQuery<{ limit: number; offset: number }>(req);
        const held = await heldListings(db, id, page);
        if (!held) throw notFound(`no quarantine item ${id}`);
        res.json(held);
      },
  },
  {
    method: 'post',
    path: '/v1/admin/quarantine/{id}/resolve',
    operationId: 'adminResolveQuarantine',
    tag: 'admin',
    auth: 'operator',
    summary: 'Mark an item reviewed; with { "action": "apply" } also archive the held listings still absent and not written since',
    parameters: [uuidPath('id', 'Quarantine item id')],
    requestBody: { required: false, content: json('ResolveRequest') },
    responses: {
      200: { description: 'The resolved item', content: json('QuarantineItem') },
      400: errorResponse('Invalid body'),
      404: errorResponse('Unknown item'),
    },
    handle: ({ db }) => [
      jsonBody('4kb'),
      async (req, res) => {
        const id = uuidParam(req.params.id, 'quarantine item');
        const body = assertValid<{ action?: 'review' | 'apply' }>('ResolveRequest', req.body ?? {}, 'body');
        const item = await resolveQuarantine(db, id, body.action === 'apply');
        if (!item) throw notFound(`no quarantine item ${id}`);
        await recordAudit(db, {
          actor: operatorOf(res),
          action: 'quarantine.resolve',
          target: id,
          details: { resolution: item.resolution, applied: item.appliedCount },
        });
        res.json(item);
      },
    ],
  },
];
