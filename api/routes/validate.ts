import { Semaphore, withTimeout } from 'async-mutex';
import { type RequestHandler, Router } from 'express';
import { HttpError } from '../../lib/errors.js';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { type FeedBody, feedText, readFeedInput } from '../feed-input.js';
import { bodyIdleTimeout } from '../middleware/body-idle-timeout.js';
import { bodyPace } from '../middleware/body-pace.js';
import { refuseUnfinishedBodyOnShutdown } from '../middleware/unfinished-body.js';
import { uploadSlots } from '../middleware/upload-slots.js';
import { PreviewSpool } from '../preview-spool.js';
import { type SpooledBody, spoolBody } from '../spool-body.js';

export interface ValidateDeps {
  feedMaxBytes: number;
  /** Dry runs read and checked at once in this process (bodies already whole). */
  concurrency: number;
  /** How long a whole body waits for one of those; still none is a 503 with Retry-After. */
  waitMs: number;
  /** Dry runs admitted at once (receiving, waiting or running), per client address and in all; one more is a 429 / 503 before its body is read. */
  uploadsPerAddress: number;
  uploads: number;
  /** Canonical previews and issues kept in one answer; past them `truncated` is true. */
  maxPreviews: number;
  maxIssues: number;
  /** Per client address. */
  limit: RequestHandler;
  /**
   * A body that stops arriving this long is answered 408; an answer the client stops reading this
   * long is dropped. Either way the dry run's slot is freed.
   */
  idleMs: number;
  /** Aborted when the process shuts down: a body still arriving is answered 503. */
  shutdown?: AbortSignal;
  /** A slot holder's body must be in within bodyMaxMs, at bodyMinBytesPerSecond on average after its first 5 s (a quarter of bodyMaxMs if less). */
  bodyMaxMs: number;
  bodyMinBytesPerSecond: number;
}

/**
 * POST /v1/validate: the dry run. Same pipeline as ingestion; nothing is stored. It needs no key,
 * so it is bounded: a rate limit per client address; a few dry runs admitted at once, per address
 * and in all (checked before the body is read); each body received whole into a temporary file,
 * at a minimum pace, before it may take one of the `concurrency` slots that read and check feeds,
 * so a slow sender holds only its admission and never delays a whole, fast body; and the answer
 * capped at maxPreviews previews and maxIssues issues (counts and ok always cover the whole feed).
 * Listing previews are spooled to a temporary file as they are produced and streamed into the
 * answer, so memory does not grow with the feed; the answer is sent once the whole feed is read, so
 * a feed that turns out not to be well-formed still gets its 400. A client that stops sending its
 * body, or stops reading the answer, for idleMs loses its connection and its slots.
 */
export function validateRouter(deps: ValidateDeps): Router {
  const router = Router();
  const admitted = uploadSlots({
    perKey: deps.uploadsPerAddress,
    total: deps.uploads,
    keyOf: (req) => req.ip ?? '',
    what: 'dry runs',
    whose: 'this address',
  });
  const busy = new HttpError(503, `${deps.concurrency} dry runs are already running; try again in a few seconds`, { 'retry-after': '5' });
  const running = withTimeout(new Semaphore(deps.concurrency), deps.waitMs, busy);
  router.post(
    '/v1/validate',
    deps.limit,
    admitted,
    bodyIdleTimeout(deps.idleMs),
    bodyPace({ maxMs: deps.bodyMaxMs, minBytesPerSecond: deps.bodyMinBytesPerSecond, graceMs: Math.min(5000, deps.bodyMaxMs / 4) }),
    refuseUnfinishedBodyOnShutdown(deps.shutdown),
    async (req, res) => {
      const input = await readFeedInput(req, deps.feedMaxBytes);
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
          maxPreviews: deps.maxPreviews,
          maxIssues: deps.maxIssues,
          previewSink: spool,
        });
        // With no 'timeout' listener left, Node destroys the socket when the answer stops moving.
        res.setTimeout(deps.idleMs);
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
  );
  return router;
}
