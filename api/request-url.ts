import type { Request } from 'express';

/**
 * The request's URL made absolute from its protocol and Host header, for links an answer carries
 * (next pages). Behind a proxy, set Express "trust proxy" so the protocol is the client's.
 */
export const requestUrl = (req: Request): URL => new URL(req.originalUrl, `${req.protocol}://${req.get('host')}`);
