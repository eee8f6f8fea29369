import { Router } from 'express';
import type { Knex } from 'knex';
import { createNamedOperatorToken, listOperatorTokens, OPERATOR_TOKEN_NAME, revokeNamedOperatorToken } from '../../db/operators.js';
import { badRequest, HttpError, notFound } from '../../lib/errors.js';
import { operatorOf } from '../auth/operator.js';
import { jsonBody } from '../middleware/json-body.js';
import { assertValid } from '../validators.js';

/**
 * Named operator tokens (behind the operator credential): list them, make one (its secret shown
 * once), revoke one. What `npm run operator:token` does on the database, for the running service:
 * on the embedded database the command comes here, as key:create does.
 */
export function adminOperatorTokensRouter(deps: { db: Knex }): Router {
  const router = Router();
  const { db } = deps;

  router.get('/v1/admin/operator-tokens', async (_req, res) => {
    res.json(await listOperatorTokens(db));
  });

  router.post('/v1/admin/operator-tokens', jsonBody('4kb'), async (req, res) => {
    const { name } = assertValid<{ name: string }>('OperatorTokenRequest', req.body ?? null, 'body');
    const created = await createNamedOperatorToken(db, name, operatorOf(res));
    if (!created) throw new HttpError(409, `an active token named ${name} exists; revoke it first`);
    res.status(201).json(created);
  });

  router.post('/v1/admin/operator-tokens/:name/revoke', async (req, res) => {
    const name = req.params.name;
    // A name no token can have is the caller's mistake, not a missing token.
    if (!OPERATOR_TOKEN_NAME.test(name)) throw badRequest('the token name in the path must be 1 to 64 letters, digits, ., _, @ or -');
    if (!(await revokeNamedOperatorToken(db, name, operatorOf(res)))) throw notFound(`no active token named ${name}`);
    res.json({ revoked: name });
  });

  return router;
}
