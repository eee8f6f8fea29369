import type { RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import { operatorTokenName } from '../../db/operators.js';
import { HttpError } from '../../lib/errors.js';
import { secretsEqual } from '../../lib/secrets.js';
import { bearerToken } from './bearer.js';

/**
 * The operator credential (DESIGN.md §8): `Authorization: Bearer <token>` where the token is
 * OPERATOR_TOKEN or an active named operator token (`npm run operator:token`); for browsers (Bull
 * Board) also HTTP Basic with the token as password. The actor (`bootstrap` or `token:<name>`) is
 * on res.locals.operator for the audit log. Without any credential configured every request is 401.
 */
export function requireOperator(operatorToken: string | null, db: Knex, options: { basic?: boolean } = {}): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization ?? '';
    let presented = bearerToken(header);
    if (!presented && options.basic) {
      const basic = /^Basic\s+(\S+)\s*$/i.exec(header)?.[1];
      if (basic) presented = Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':') || null;
    }
    let actor: string | null = null;
    if (presented && operatorToken && secretsEqual(presented, operatorToken)) actor = 'bootstrap';
    else if (presented?.startsWith('lop_')) {
      const name = await operatorTokenName(db, presented);
      if (name) actor = `token:${name}`;
    }
    if (actor) {
      res.locals.operator = actor;
      next();
      return;
    }
    if (options.basic) res.setHeader('WWW-Authenticate', 'Basic realm="operators", charset="UTF-8"');
    throw new HttpError(401, 'operator credential missing or wrong');
  };
}

export const operatorOf = (res: Response): string => res.locals.operator as string;
