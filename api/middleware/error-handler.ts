import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isDatabaseUnavailable, isStatementCancelled } from '../../db/unavailable.js';
import { HttpError } from '../../lib/errors.js';
import { FeedSyntaxError } from '../../pipeline/feed-syntax-error.js';

/** Unknown routes: 404 with the same body shape as every other error. */
export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json({ error: `no route for ${req.method} ${req.path}` });
};

/**
 * What the error middleware reads of an error it did not make: body-parser's and http-errors'
 * (type, status, limit, expose), zlib's (code) and a URI error's message. Express hands it over
 * untyped; any of these may be missing.
 */
interface ThrownError {
  message: string;
  type?: string;
  status?: number;
  statusCode?: number;
  limit?: number;
  code?: string;
  expose?: boolean;
}

/** body-parser error types and the status each deserves. */
const BODY_ERRORS: Record<string, [number, (err: ThrownError) => string]> = {
  'entity.too.large': [413, (err) => `request body is larger than the limit of ${err.limit} bytes`],
  'entity.parse.failed': [400, (err) => `request body is not valid JSON: ${err.message}`],
  'encoding.unsupported': [415, (err) => err.message],
  'charset.unsupported': [415, (err) => err.message],
  'request.aborted': [400, () => 'request was aborted by the client'],
  'entity.verify.failed': [400, (err) => err.message],
};

function isClientError(err: ThrownError): boolean {
  const status = err?.status ?? err?.statusCode;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status < 500;
}

function clientMessage(err: ThrownError): string {
  if (err instanceof URIError || /^Failed to decode param/.test(err.message)) return `the path is not valid percent-encoding (${err.message})`;
  if (
    ['Z_DATA_ERROR', 'Z_BUF_ERROR', 'ERR__ERROR_FORMAT_PADDING_1', 'ERR_ZLIB_INITIALIZATION_FAILED'].includes(err.code ?? '') ||
    /incorrect header check|invalid (block|stored|distance)|unexpected end of file|Decompression failed/i.test(err.message)
  ) {
    return `the request body could not be decompressed as its Content-Encoding says (${err.message})`;
  }
  return err.expose === false ? 'bad request' : String(err.message);
}

/** The status and client-facing message of an error; anything unexpected is a logged 500 with no detail. */
function describeError(err: ThrownError, req: Parameters<ErrorRequestHandler>[1]): { status: number; message: string } {
  let status = 500;
  let message = 'internal error';
  if (err instanceof HttpError) {
    status = err.status;
    message = err.message;
  } else if (err instanceof FeedSyntaxError) {
    status = 400;
    message = err.message;
  } else if (isStatementCancelled(err)) {
    status = 503;
    message = 'the database took longer to answer than this service allows; try again shortly, or ask for less';
    req.log?.warn({ err: err.message }, 'database statement cancelled');
  } else if (isDatabaseUnavailable(err)) {
    status = 503;
    message = 'the database is unavailable; try again shortly';
    req.log?.warn({ err: err.message }, 'database unavailable');
  } else if (err && typeof err.type === 'string' && BODY_ERRORS[err.type]) {
    const [s, describe] = BODY_ERRORS[err.type];
    status = s;
    message = describe(err);
  } else if (isClientError(err)) {
    // Errors that carry their own 4xx (a path that is not valid percent-encoding, a corrupt
    // gzip/deflate/br body): their message is written for the client (http-errors' expose).
    status = err.status ?? err.statusCode ?? status;
    message = clientMessage(err);
  }
  if (status === 500) req.log?.error({ err }, 'request failed');
  return { status, message };
}

/** Error middleware answering with body(status, message, err): the one place errors become responses. */
export function errorResponder(body: (status: number, message: string, err: unknown) => unknown): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const { status, message } = describeError(err, req);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof HttpError) res.set(err.headers);
    res.status(status).json(body(status, message, err));
  };
}

/** `{ "error": "..." }` (the RESO surface words the same in OData's form). */
export const errorHandler = errorResponder((_status, message) => ({ error: message }));
