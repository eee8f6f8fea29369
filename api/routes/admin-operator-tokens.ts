import { createNamedOperatorToken, listOperatorTokens, OPERATOR_TOKEN_NAME, revokeNamedOperatorToken } from '../../db/operators.js';
import { badRequest, HttpError, notFound } from '../../lib/errors.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { answer, errorResponse } from '../openapi-helpers.js';
import type { RouteSpec } from '../route-registry.js';

/**
 * Named operator tokens (behind the operator credential): list them, make one (its secret shown
 * once), revoke one. What `npm run operator:token` does on the database, for the running service:
 * on the embedded database the command comes here, as key:create does.
 */
export const adminOperatorTokenRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/admin/operator-tokens',
    operationId: 'adminListOperatorTokens',
    tag: 'admin',
    auth: 'operator',
    summary: 'Named operator tokens, revoked ones included (never the secrets)',
    responses: { 200: answer('The tokens, newest first', 'OperatorTokenList') },
    handle:
      ({ db }) =>
      async (_req, res) => {
        res.json(await listOperatorTokens(db));
      },
  },
  {
    method: 'post',
    path: '/v1/admin/operator-tokens',
    operationId: 'adminCreateOperatorToken',
    tag: 'admin',
    auth: 'operator',
    summary: "Make a named operator token and show its secret once (the running service's way to do what npm run operator:token -- create does)",
    body: 'OperatorTokenRequest',
    responses: {
      201: answer('The token; its secret is shown only here', 'OperatorTokenCreated'),
      400: errorResponse('Invalid body'),
      409: errorResponse('An active token of that name exists: revoke it first'),
    },
    handle: ({ db }, { validBody }) => [
      jsonBody('4kb'),
      async (req, res) => {
        const { name } = validBody<{ name: string }>(req);
        const created = await createNamedOperatorToken(db, name, operatorOf(res));
        if (!created) throw new HttpError(409, `an active token named ${name} exists; revoke it first`);
        res.status(201).json(created);
      },
    ],
  },
  {
    method: 'post',
    path: '/v1/admin/operator-tokens/{name}/revoke',
    operationId: 'adminRevokeOperatorToken',
    tag: 'admin',
    auth: 'operator',
    summary: 'Revoke the active token of that name: it opens nothing from now on, and browser sessions opened with it end',
    parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      200: answer('Revoked', 'OperatorTokenRevoked'),
      400: errorResponse('Not a token name'),
      404: errorResponse('No active token of that name'),
    },
    handle:
      ({ db }) =>
      async (req, res) => {
        const name = String(req.params.name);
        // A name no token can have is the caller's mistake, not a missing token.
        if (!OPERATOR_TOKEN_NAME.test(name)) throw badRequest('the token name in the path must be 1 to 64 letters, digits, ., _, @ or -');
        if (!(await revokeNamedOperatorToken(db, name, operatorOf(res)))) throw notFound(`no active token named ${name}`);
        res.json({ revoked: name });
      },
  },
];
