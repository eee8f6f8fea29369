import { parseCookie } from 'cookie';
import type { Request, RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import { operatorSessionActor } from '../../db/operator-sessions.js';
import { operatorTokenName } from '../../db/operators.js';
import { HttpError } from '../../lib/errors.js';
import { secretsEqual } from '../../lib/secrets.js';
import { bearerToken } from './bearer.js';

/** The console's sign-in cookie: HttpOnly, SameSite=Strict, sent only to /admin (the queue board and the session itself). */
export const SESSION_COOKIE = 'operator_session';
export const SESSION_COOKIE_PATH = '/admin';

/** The session secret the request's cookie carries, or null. */
export function sessionSecret(req: Request): string | null {
  const header = req.headers.cookie;
  return header ? (parseCookie(header)[SESSION_COOKIE] ?? null) : null;
}

/**
 * The credentials an operator may present: OPERATOR_TOKEN (actor `bootstrap`), and on the embedded
 * database the running process's local command token (actor `command:local`; DATA_DIR/service.json,
 * readable by the account that runs the service only) that `npm run key:create` uses to reach it.
 * Named tokens are looked up in the database.
 */
export interface OperatorCredentials {
  operatorToken: string | null;
  localToken?: string | null;
}

/** The actor a token stands for (`bootstrap`, `command:local` or `token:<name>`), or null. */
export async function tokenActor(db: Knex, credentials: OperatorCredentials, presented: string | null): Promise<string | null> {
  const { operatorToken, localToken } = credentials;
  if (presented && operatorToken && secretsEqual(presented, operatorToken)) return 'bootstrap';
  if (presented && localToken && secretsEqual(presented, localToken)) return 'command:local';
  if (presented?.startsWith('lop_')) {
    const name = await operatorTokenName(db, presented);
    if (name) return `token:${name}`;
  }
  return null;
}

/**
 * The operator credential: `Authorization: Bearer <token>` where the token is OPERATOR_TOKEN or an
 * active named operator token (`npm run operator:token`). With `session` (the queue board, a page a
 * browser opens) also the console's sign-in cookie, and a browser asking for a page without either
 * is sent to the console to sign in (`signIn`). The actor (`bootstrap` or `token:<name>`) is on
 * res.locals.operator for the audit log. Without any credential configured every request is 401.
 */
export function requireOperator(credentials: OperatorCredentials, db: Knex, options: { session?: boolean; signIn?: string } = {}): RequestHandler {
  return async (req, res, next) => {
    let actor = await tokenActor(db, credentials, bearerToken(req.headers.authorization ?? ''));
    const secret = options.session && !actor ? sessionSecret(req) : null;
    if (secret) actor = await operatorSessionActor(db, secret, credentials.operatorToken);
    if (actor) {
      res.locals.operator = actor;
      next();
      return;
    }
    if (options.signIn && req.method === 'GET' && req.accepts(['json', 'html']) === 'html') {
      res.redirect(303, options.signIn);
      return;
    }
    throw new HttpError(401, options.session ? 'operator credential missing or wrong: sign in at /console' : 'operator credential missing or wrong');
  };
}

export const operatorOf = (res: Response): string => res.locals.operator as string;
