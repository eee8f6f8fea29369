import type { RequestHandler } from 'express';
import { refuseUnfinishedBody } from './unfinished-body.js';

export interface BodyPaceOptions {
  /** The whole body must be in within this long of the request's start. */
  maxMs: number;
  /** From graceMs on, the body must have arrived at this average rate at least. */
  minBytesPerSecond: number;
  graceMs: number;
}

/**
 * Bounds how long a request may hold what it took before its body was read (a dry-run slot):
 * a body still arriving after maxMs, or averaging less than minBytesPerSecond once graceMs have
 * passed, is answered 408 and dropped. The idle limit alone lets a client keep a slot for ever by
 * sending a byte just before each idle period ends; this bounds total time and rate. Bytes are
 * counted on the connection, so the body is not read here.
 */
export function bodyPace(options: BodyPaceOptions): RequestHandler {
  return (req, res, next) => {
    if (req.complete) return next();
    const started = Date.now();
    // Kept now: once the response is closed, req.socket may be gone (Node 24 clears it).
    const socket = req.socket;
    const bytesAtStart = socket.bytesRead;
    const timer = setInterval(() => {
      if (req.complete) return stop();
      const elapsed = Date.now() - started;
      const rate = ((socket.bytesRead - bytesAtStart) * 1000) / Math.max(elapsed, 1);
      let problem: string | null = null;
      if (elapsed >= options.maxMs) problem = `the request body was not complete within ${Math.round(options.maxMs / 1000)} s`;
      else if (elapsed >= options.graceMs && rate < options.minBytesPerSecond)
        problem = `the request body arrived at ${Math.round(rate)} bytes/s, below the minimum of ${options.minBytesPerSecond}`;
      if (!problem) return;
      stop();
      refuseUnfinishedBody(req, res, 408, `${problem}; nothing was stored, send it again faster`);
    }, 250);
    const stop = () => clearInterval(timer);
    req.once('end', stop);
    res.once('close', stop);
    next();
  };
}
