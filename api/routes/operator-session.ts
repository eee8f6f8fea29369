import type { Request } from 'express';
import { closeOperatorSession, OPERATOR_SESSION_HOURS, openOperatorSession } from '../../db/operator-sessions.js';
import { recordAudit } from '../../db/operators.js';
import { bearerToken } from '../auth/bearer.js';
import { operatorOf, SESSION_COOKIE, SESSION_COOKIE_PATH, sessionSecret } from '../auth/operator.js';
import { sameOriginWrites } from '../middleware/same-origin-writes.js';
import { answer, errorResponse } from '../openapi-helpers.js';
import type { RouteSpec } from '../route-registry.js';

const cookieOptions = (req: Request) => ({ httpOnly: true, sameSite: 'strict' as const, secure: req.secure, path: SESSION_COOKIE_PATH });

/**
 * The console's sign-in session, the queue board's credential in a browser:
 * POST /admin/session with the operator token as Bearer opens one (an HttpOnly, SameSite=Strict
 * cookie for /admin, 8 hours); DELETE /admin/session ends it. A browser never sends a SameSite=Strict
 * cookie with a request another site starts, unlike the HTTP Basic password it replays anywhere.
 */
export const operatorSessionRoutes: RouteSpec[] = [
  {
    method: 'post',
    path: '/admin/session',
    operationId: 'openOperatorSession',
    tag: 'admin',
    auth: 'operator',
    summary: "Open the queue board's browser session (the console does this when an operator signs in)",
    description:
      'Sets the operator_session cookie: HttpOnly, SameSite=Strict, Path=/admin, Secure over HTTPS, for 8 hours. The queue board at /admin/queues takes it in place of the Bearer header. The session ends when the token it was opened with is revoked (or OPERATOR_TOKEN changes).',
    responses: { 201: answer('The session is open', 'OperatorSession') },
    handle:
      ({ db }) =>
      async (req, res) => {
        const actor = operatorOf(res);
        const { secret, expiresAt } = await openOperatorSession(db, actor, bearerToken(req.headers.authorization) ?? '');
        await recordAudit(db, { actor, action: 'operator.sign_in', details: { expiresAt: expiresAt.toISOString() } });
        res.cookie(SESSION_COOKIE, secret, { ...cookieOptions(req), maxAge: OPERATOR_SESSION_HOURS * 3600_000 });
        res.status(201).json({ expiresAt: expiresAt.toISOString() });
      },
  },
  {
    method: 'delete',
    path: '/admin/session',
    operationId: 'closeOperatorSession',
    tag: 'admin',
    auth: 'none',
    summary: 'End the browser session (signing out of the console); clears the cookie',
    responses: { 204: { description: 'Ended (also when there was none)' }, 403: errorResponse('Sent by a page on another site') },
    handle: ({ db, config }) => [
      sameOriginWrites(config.publicBaseUrl),
      async (req, res) => {
        const secret = sessionSecret(req);
        if (secret) await closeOperatorSession(db, secret);
        res.clearCookie(SESSION_COOKIE, cookieOptions(req));
        res.status(204).end();
      },
    ],
  },
];
