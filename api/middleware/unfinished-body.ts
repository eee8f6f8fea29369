import type { Request, RequestHandler, Response } from 'express';
import { HttpError } from '../../lib/errors.js';

/**
 * Answers a request whose body is still arriving, then ends it. The request is destroyed with the
 * same error, not only its socket: a handler reading the body sees it fail and ends (removing what
 * it had received into a temporary file) instead of waiting for ever.
 */
export function refuseUnfinishedBody(req: Request, res: Response, status: number, message: string, headers: Record<string, string> = {}): void {
  const socket = req.socket;
  const stop = () => {
    req.destroy(new HttpError(status, message));
    socket?.destroy();
  };
  if (res.headersSent) {
    stop();
    return;
  }
  res.once('finish', stop);
  res
    .status(status)
    .set({ ...headers, connection: 'close' })
    .json({ error: message });
}

/**
 * When the process starts shutting down, a request whose body is still arriving is answered 503
 * with Retry-After at once and its body dropped (nothing is stored), instead of being cut off
 * when the grace period ends. A request whose body is in finishes as usual.
 */
export function refuseUnfinishedBodyOnShutdown(shutdown: AbortSignal | undefined): RequestHandler {
  const message = 'the service is shutting down; nothing was stored, send it again in a few seconds';
  return (req, res, next) => {
    if (!shutdown || req.complete) return next();
    const onShutdown = () => {
      if (!req.complete) refuseUnfinishedBody(req, res, 503, message, { 'retry-after': '5' });
    };
    if (shutdown.aborted) {
      onShutdown();
      return;
    }
    shutdown.addEventListener('abort', onShutdown, { once: true });
    const clear = () => shutdown.removeEventListener('abort', onShutdown);
    req.once('end', clear);
    res.once('close', clear);
    next();
  };
}
