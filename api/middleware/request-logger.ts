import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../../lib/logger.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** One log line per request with its request id (a well-formed inbound X-Request-Id is kept). */
export function requestLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId(req: IncomingMessage, res: ServerResponse) {
      const inbound = req.headers['x-request-id'];
      const id = typeof inbound === 'string' && REQUEST_ID.test(inbound) ? inbound : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customLogLevel(_req, res, err) {
      if (err || res.statusCode >= 500) return 'error';
      if (res.statusCode >= 400) return 'warn';
      return 'info';
    },
    autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
  });
}
