import type { Request, RequestHandler, Response } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { type RedisReply, RedisStore } from 'rate-limit-redis';
import type { Logger } from '../../lib/logger.js';

export interface RateLimitOptions {
  /** Requests per client address per window. */
  allowance: number;
  /** Name of the limited action, used in the store key and the error. */
  name: string;
  /** With a Redis client the count is shared by every web process; otherwise it is per process. */
  redis: Redis | null;
  /** Redis key prefix (default `rl:`). */
  prefix?: string;
  /** Where the limiter's own trouble (an unreachable Redis) is logged. */
  logger: Logger;
  /**
   * Requests the limit counts: all (default), or only those answered with another status than
   * 503, so that a service outage does not use up a client's allowance.
   */
  countUnavailable?: boolean;
  /** The window (default an hour). */
  windowMs?: number;
  /** Answers a request past the limit (default 429 with `{ error }`); Retry-After is already set. */
  refuse?: (res: Response, message: string) => void;
  /** Told of each request refused for being past the limit (e.g. to count refused enquiries). */
  onRefused?: () => void;
  /**
   * Whose requests are counted together (default: the client address); `who` says so in the
   * error, e.g. 'for this key'.
   */
  per?: { key(req: Request, res: Response): string; who: string };
}

/**
 * Per client address (req.ip: the connection's, or X-Forwarded-For's from a proxy TRUST_PROXY names), or per whatever `per`
 * names, and window (an hour unless windowMs says otherwise). 429 with
 * `{ error }` past the limit. Should the shared store fail, requests pass (logged by the caller's
 * error handling), so a Redis outage does not take the endpoint down with it.
 */
export function addressLimit(options: RateLimitOptions): RequestHandler {
  const store: Store | undefined = options.redis
    ? new RedisStore({
        prefix: `${options.prefix ?? 'rl:'}${options.name}:`,
        sendCommand: (command: string, ...args: string[]) => options.redis!.call(command, ...args) as Promise<RedisReply>,
      })
    : undefined;
  const windowMs = options.windowMs ?? 60 * 60 * 1000;
  const window = windowMs === 60 * 60 * 1000 ? 'hour' : windowMs === 60 * 1000 ? 'minute' : `${windowMs / 1000} s`;
  return rateLimit({
    windowMs,
    limit: options.allowance,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    passOnStoreError: true,
    store,
    // The limiter's own errors (Redis away) go to the service's log, not to the console.
    logger: {
      warn: (err: unknown, message?: string) => options.logger.warn({ err, limit: options.name }, message ?? 'rate limiter warning'),
      error: (err: unknown, message?: string) => options.logger.warn({ err, limit: options.name }, message ?? 'rate limiter error'),
    },
    ...(options.countUnavailable === false
      ? { skipFailedRequests: true, requestWasSuccessful: (_req: unknown, res: { statusCode: number }) => res.statusCode !== 503 }
      : {}),
    ...(options.per ? { keyGenerator: options.per.key } : {}),
    handler: (_req, res) => {
      options.onRefused?.();
      const message = `too many ${options.name} requests ${options.per?.who ?? 'from this address'}; the limit is ${options.allowance} per ${window}`;
      if (options.refuse) options.refuse(res.status(429), message);
      else res.status(429).json({ error: message });
    },
  });
}
