import type { RequestHandler, Response } from 'express';
import { type FeedKey, findFeedKeyBySecret, recordKeyUse } from '../../db/feed-keys.js';
import type { Db } from '../../db/knex.js';
import { HttpError } from '../../lib/errors.js';
import { bearerToken } from './bearer.js';

/** The bearer credential, or for ingestion also `x-feed-token`. */
function presentedKey(authorization: string | undefined, token: string | string[] | undefined, allowHeaderToken: boolean): string | null {
  const bearer = bearerToken(authorization);
  if (bearer) return bearer;
  if (allowHeaderToken && typeof token === 'string' && token.trim()) return token.trim();
  return null;
}

/**
 * Authenticates a feed key (docs/ingestion.md). 401 for a missing, unknown or revoked key,
 * and for a suspended one unless the route allows it (whoami does, so integrators can poll for
 * approval). The key is on res.locals.feedKey afterwards.
 */
export function requireFeedKey(db: Db, options: { allowSuspended: boolean; allowHeaderToken: boolean }): RequestHandler {
  return async (req, res, next) => {
    const secret = presentedKey(req.headers.authorization, req.headers['x-feed-token'], options.allowHeaderToken);
    if (!secret)
      throw new HttpError(
        401,
        options.allowHeaderToken
          ? 'a feed key is required: Authorization: Bearer <key> or x-feed-token'
          : 'a feed key is required: Authorization: Bearer <key>',
      );
    const key = await findFeedKeyBySecret(db, secret);
    if (!key || key.status === 'revoked') throw new HttpError(401, 'the feed key is not valid');
    if (key.status === 'suspended' && !options.allowSuspended) throw new HttpError(401, 'the feed key is awaiting operator approval');
    res.locals.feedKey = key;
    recordKeyUse(db, key.id)?.catch((err: Error) => req.log?.warn({ keyId: key.id, err: err.message }, "could not record the key's last use"));
    next();
  };
}

export const feedKeyOf = (res: Response): FeedKey => res.locals.feedKey as FeedKey;
