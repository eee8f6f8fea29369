import type { RequestHandler } from 'express';
import { HttpError } from '../../lib/errors.js';
import { secretsEqual } from '../../lib/secrets.js';

/**
 * The operator credential (DESIGN.md §8): `Authorization: Bearer <OPERATOR_TOKEN>`; for browsers
 * (Bull Board) also HTTP Basic with the token as password. Without a configured token the admin
 * API is closed: every request is 401.
 */
export function requireOperator(operatorToken: string | null, options: { basic?: boolean } = {}): RequestHandler {
  return (req, res, next) => {
    const header = req.headers.authorization ?? '';
    let presented: string | null = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? null;
    if (!presented && options.basic) {
      const basic = /^Basic\s+(\S+)\s*$/i.exec(header)?.[1];
      if (basic) presented = Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':') || null;
    }
    if (operatorToken && presented && secretsEqual(presented, operatorToken)) {
      next();
      return;
    }
    if (options.basic) res.setHeader('WWW-Authenticate', 'Basic realm="operators", charset="UTF-8"');
    throw new HttpError(401, operatorToken ? 'operator credential missing or wrong' : 'the admin API is closed: OPERATOR_TOKEN is not set');
  };
}
