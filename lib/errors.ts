/** An error that knows its HTTP status; the error middleware turns it into `{ "error": message }`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Headers the answer carries, e.g. Retry-After on a 503. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const requestTimeout = (message: string) => new HttpError(408, message);
export const tooManyRequests = (message: string) => new HttpError(429, message);
export const notFound = (message: string) => new HttpError(404, message);
export const payloadTooLarge = (message: string) => new HttpError(413, message);
export const unsupportedMediaType = (message: string) => new HttpError(415, message);
export const serviceUnavailable = (message: string) => new HttpError(503, message);
