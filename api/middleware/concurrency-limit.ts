import type { RequestHandler } from 'express';

/**
 * At most `max` requests of a kind at once in this process (a semaphore that does not queue):
 * one more is answered 503 with Retry-After at once, before its body is read, so a burst of large
 * bodies cannot exhaust memory. A slot is freed when its response ends or its connection closes.
 */
export function concurrencyLimit(options: { max: number; what: string; retryAfterS?: number }): RequestHandler {
  let inFlight = 0;
  return (_req, res, next) => {
    if (inFlight >= options.max) {
      res
        .status(503)
        .set('retry-after', String(options.retryAfterS ?? 5))
        .json({ error: `${options.max} ${options.what} are already running; try again in a few seconds` });
      return;
    }
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
    });
    next();
  };
}
