import type { RequestHandler } from 'express';
import { refuseUnfinishedBody } from './unfinished-body.js';

/**
 * A request whose body stops arriving for idleMs is answered 408 and its connection closed, so a
 * slow-drip upload holds nothing for long. Only while the body is being received: once it is
 * complete (or the response is done) the connection may be idle as long as the handler needs.
 */
export function bodyIdleTimeout(idleMs: number): RequestHandler {
  return (req, res, next) => {
    if (req.complete || idleMs <= 0) return next();
    // Kept now: once the response is closed, req.socket may be gone (Node 24 clears it).
    const socket = req.socket;
    const message = `the request body stopped arriving for ${Math.round(idleMs / 1000)} s; nothing was stored, send it again`;
    const onIdle = () => {
      clear();
      if (!req.complete) refuseUnfinishedBody(req, res, 408, message);
    };
    const clear = () => {
      socket.setTimeout(0);
      req.removeListener('timeout', onIdle);
    };
    // Node's server destroys a timed-out socket unless the request listens for 'timeout'.
    socket.setTimeout(idleMs);
    req.on('timeout', onIdle);
    req.once('end', clear);
    res.once('close', clear);
    next();
  };
}
