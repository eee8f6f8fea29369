import { randomUUID } from 'node:crypto';
import type { Express, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../../lib/logger.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** This request's id (X-Request-Id), set by requestLogger. */
    id?: string;
    /** A logger whose lines carry this request's id (made on first use). */
    readonly log?: Logger;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Probes polled every few seconds; their lines would drown the rest. */
const UNLOGGED = new Set(['/healthz', '/readyz']);

function levelFor(status: number): 'info' | 'warn' | 'error' {
  if (status >= 500) return 'error';
  if (status >= 400) return 'warn';
  return 'info';
}

/** Where a request keeps its child logger once made. */
const CHILD = Symbol('request child logger');

/**
 * Gives every request an id (a well-formed inbound X-Request-Id is kept, else a new UUID), echoes it
 * in the X-Request-Id header, offers `req.log` (a child logger carrying the id, made on first use)
 * and writes one line when the response is done or the connection closed before it was: reqId,
 * method, url, status and response time, at info, warn (4xx, and responses never completed) or
 * error (5xx). No headers or bodies are logged.
 *
 * `req.log` is a getter on the app's request prototype, defined once here: defining it on each
 * request would turn every request object into a slow dictionary-mode object.
 *
 * Decision: written on pino directly rather than with pino-http, which builds and redacts a
 * serialised copy of every request for a child logger even when nothing is logged; that cost
 * ~100 µs of CPU per request, most of the framework's overhead on the public reads (bench/search).
 */
export function requestLogger(app: Express, logger: Logger): RequestHandler {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request & { [CHILD]?: Logger }) {
      return (this[CHILD] ??= logger.child({ reqId: this.id }));
    },
  });
  return (req, res, next) => {
    const inbound = req.headers['x-request-id'];
    const id = typeof inbound === 'string' && REQUEST_ID.test(inbound) ? inbound : randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    if (UNLOGGED.has(req.url)) return next();
    const started = performance.now();
    // 'close' follows 'finish', and also comes alone when the client goes away first.
    res.once('close', () => logCompletion(logger, req, res, id, performance.now() - started));
    next();
  };
}

/** A URL as the log keeps it: the value of a `token` parameter (an alert's link, which stands for its address) left out. */
export const loggedUrl = (url: string) => url.replace(/([?&]token=)[^&#]*/gi, '$1[redacted]');

function logCompletion(logger: Logger, req: Request, res: Response, reqId: string, ms: number): void {
  const aborted = !res.writableFinished;
  const level = aborted ? 'warn' : levelFor(res.statusCode);
  if (!logger.isLevelEnabled(level)) return;
  logger[level](
    { reqId, req: { method: req.method, url: loggedUrl(req.originalUrl) }, res: { statusCode: res.statusCode }, responseTime: Math.round(ms) },
    aborted ? 'request closed before its response was complete' : 'request completed',
  );
}
