import { type Request, Router } from 'express';
import type { Knex } from 'knex';
import { closeOperatorSession, OPERATOR_SESSION_HOURS, openOperatorSession } from '../../db/operator-sessions.js';
import { recordAudit } from '../../db/operators.js';
import { bearerToken } from '../auth/bearer.js';
import { type OperatorCredentials, operatorOf, requireOperator, SESSION_COOKIE, SESSION_COOKIE_PATH, sessionSecret } from '../auth/operator.js';
import { sameOriginWrites } from '../middleware/same-origin-writes.js';

const cookieOptions = (req: Request) => ({ httpOnly: true, sameSite: 'strict' as const, secure: req.secure, path: SESSION_COOKIE_PATH });

/**
 * The console's sign-in session, the queue board's credential in a browser:
 * POST /admin/session with the operator token as Bearer opens one (an HttpOnly, SameSite=Strict
 * cookie for /admin, 8 hours); DELETE /admin/session ends it. A browser never sends a SameSite=Strict
 * cookie with a request another site starts, unlike the HTTP Basic password it replays anywhere.
 */
export function operatorSessionRouter(deps: { db: Knex; operators: OperatorCredentials; publicBaseUrl: string | null }): Router {
  const router = Router();
  router.post('/admin/session', requireOperator(deps.operators, deps.db), async (req, res) => {
    const actor = operatorOf(res);
    const { secret, expiresAt } = await openOperatorSession(deps.db, actor, bearerToken(req.headers.authorization) ?? '');
    await recordAudit(deps.db, { actor, action: 'operator.sign_in', details: { expiresAt: expiresAt.toISOString() } });
    res.cookie(SESSION_COOKIE, secret, { ...cookieOptions(req), maxAge: OPERATOR_SESSION_HOURS * 3600_000 });
    res.status(201).json({ expiresAt: expiresAt.toISOString() });
  });
  router.delete('/admin/session', sameOriginWrites(deps.publicBaseUrl), async (req, res) => {
    const secret = sessionSecret(req);
    if (secret) await closeOperatorSession(deps.db, secret);
    res.clearCookie(SESSION_COOKIE, cookieOptions(req));
    res.status(204).end();
  });
  return router;
}
