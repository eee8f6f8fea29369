import { Semaphore, withTimeout } from 'async-mutex';
import type { RequestHandler } from 'express';
import { HttpError } from '../../lib/errors.js';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { type FeedBody, feedText, readFeedInput } from '../feed-input.js';
import { bodyIdleTimeout } from '../middleware/body-idle-timeout.js';
import { bodyPace } from '../middleware/body-pace.js';
import { refuseUnfinishedBodyOnShutdown } from '../middleware/unfinished-body.js';
import { uploadSlots } from '../middleware/upload-slots.js';
import { errorResponse, feedRequestBody, json } from '../openapi-helpers.js';
import { PreviewSpool } from '../preview-spool.js';
import type { RouteDeps } from '../route-deps.js';
import type { RouteSpec } from '../route-registry.js';
import { type SpooledBody, spoolBody } from '../spool-body.js';

/**
 * POST /v1/validate: the dry run. Same pipeline as ingestion; nothing is stored. It needs no key,
 * so it is bounded: a rate limit per client address; a few dry runs admitted at once, per address
 * and in all (checked before the body is read); each body received whole into a temporary file,
 * at a minimum pace, before it may take one of the VALIDATE_CONCURRENCY slots that read and check feeds,
 * so a slow sender holds only its admission and never delays a whole, fast body; and the answer
 * capped at VALIDATE_MAX_PREVIEWS previews and VALIDATE_MAX_ISSUES issues (counts and ok always cover the whole feed).
 * Listing previews are spooled to a temporary file as they are produced and streamed into the
 * answer, so memory does not grow with the feed; the answer is sent once the whole feed is read, so
 * a feed that turns out not to be well-formed still gets its 400. A client that stops sending its
 * body, or stops reading the answer, for FEED_BODY_IDLE_MS loses its connection and its slots.
 */
function validateHandlers(deps: RouteDeps): RequestHandler[] {
  const { config } = deps;
  const admitted = uploadSlots({
    perKey: config.validateUploadsPerAddress,
    total: config.validateUploads,
    keyOf: (req) => req.ip ?? '',
    what: 'dry runs',
    whose: 'this address',
  });
  const busy = new HttpError(503, `${config.validateConcurrency} dry runs are already running; try again in a few seconds`, { 'retry-after': '5' });
  const running = withTimeout(new Semaphore(config.validateConcurrency), config.validateWaitMs, busy);
  const bodyMaxMs = config.validateBodyMaxMs;
  return [
    deps.limit('validate', config.validateRateLimit),
    admitted,
    bodyIdleTimeout(config.feedBodyIdleMs),
    bodyPace({ maxMs: bodyMaxMs, minBytesPerSecond: config.validateMinBytesPerS, graceMs: Math.min(5000, bodyMaxMs / 4) }),
    refuseUnfinishedBodyOnShutdown(deps.shutdown),
    async (req, res) => {
      const input = await readFeedInput(req, config.feedMaxBytes);
      // The whole body first: a raw one is received into a file (a JSON feed request's xml already is).
      let raw: SpooledBody | null = null;
      const spool = new PreviewSpool();
      let release: (() => void) | null = null;
      try {
        if (input.body.kind === 'bytes') raw = await spoolBody(input.body.stream);
        const body: FeedBody = raw ? { kind: 'bytes', stream: raw.read() } : input.body;
        // Past waitMs this rejects with `busy`, the 503 (the place in line is given up).
        [, release] = await running.acquire();
        if (res.destroyed) return; // the client left while waiting
        const { listings: _inSpool, ...result } = await validateFeed(feedText(body), input.context, {
          format: input.format,
          maxPreviews: config.validateMaxPreviews,
          maxIssues: config.validateMaxIssues,
          previewSink: spool,
        });
        // With no 'timeout' listener left, Node destroys the socket when the answer stops moving.
        res.setTimeout(config.feedBodyIdleMs);
        res.type('application/json');
        res.write(`${JSON.stringify(result).slice(0, -1)},"listings":`);
        await spool.writeArray(res);
        res.end('}');
      } finally {
        release?.();
        spool.close();
        await raw?.remove();
        await input.release();
      }
    },
  ];
}

export const validateRoutes: RouteSpec[] = [
  {
    method: 'post',
    path: '/v1/validate',
    operationId: 'validateFeed',
    tag: 'ingestion',
    auth: 'none',
    summary: 'Dry-run a feed: parse, map and validate without storing anything',
    description:
      'Send either the JSON feed request body (format reaxml, reso or project; the document as text in `xml`), or the raw document with the context in query parameters: REAXML as application/xml or text/xml, a RESO payload or project document (ProjectFeed) as application/json with format=reso or format=project. No key is needed; the answer keeps the first 1,000 previews and 10,000 issues (`truncated` says when more were left out). Limited per client address per hour (VALIDATE_RATE_LIMIT: 429) and in dry runs admitted at once, per address (VALIDATE_UPLOADS_PER_ADDRESS, 2: 429) and in all (VALIDATE_UPLOADS, 8: 503), checked before the body is read. A body is received whole before it is read and checked, a few at a time (VALIDATE_CONCURRENCY, 2): it waits up to VALIDATE_WAIT_MS (10 s) for a turn, then 503. Every 429 and 503 carries Retry-After. The answer streams as it is read; a body that stops arriving, or an answer that stops being read, for FEED_BODY_IDLE_MS (30 s) loses its connection, and so does a body not complete within VALIDATE_BODY_MAX_MS (120 s) or averaging under VALIDATE_MIN_BYTES_PER_S (8,192 bytes/s) after its first 5 s. Bodies may be sent compressed (Content-Encoding gzip, deflate or br).',
    // Checked by readFeedInput, which reads the same schema (the JSON body form carries it in `context`).
    query: 'FeedQuery',
    requestBody: feedRequestBody,
    responses: {
      200: { description: 'Validation result with canonical previews', content: json('ValidationResult') },
      400: errorResponse(
        'Invalid request, or a feed that is not well-formed, has a wrong root or no listings, or (RESO and project) nests more than 64 levels deep (the error names line and column)',
      ),
      408: errorResponse('The request body stopped arriving, arrived too slowly, or was not complete in time'),
      413: errorResponse('Body (sent or unpacked) larger than FEED_MAX_BYTES'),
      415: errorResponse('Unsupported Content-Type, Content-Encoding or charset'),
      429: errorResponse('Too many dry runs from this address this hour, or too many at once'),
      503: errorResponse(
        'As many dry runs as the service admits at once are in, none of the running slots came free in time (Retry-After says when to try again), or the service is shutting down',
      ),
    },
    handle: validateHandlers,
  },
];
