import { type RequestHandler, Router } from 'express';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { feedText, readFeedInput } from '../feed-input.js';
import { bodyIdleTimeout } from '../middleware/body-idle-timeout.js';
import { bodyPace } from '../middleware/body-pace.js';
import { concurrencyLimit } from '../middleware/concurrency-limit.js';
import { refuseUnfinishedBodyOnShutdown } from '../middleware/unfinished-body.js';
import { PreviewSpool } from '../preview-spool.js';

export interface ValidateDeps {
  feedMaxBytes: number;
  /** Dry runs at once in this process; one more is a 503 with Retry-After. */
  concurrency: number;
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
 * so it is bounded: a rate limit per client address, a few dry runs at once (checked before the
 * body is read), raw bodies streamed, and the answer capped at maxPreviews previews and maxIssues
 * issues (counts and ok always cover the whole feed). Listing previews are spooled to a temporary
 * file as they are produced and streamed into the answer, so memory does not grow with the feed;
 * the answer is sent once the whole feed is read, so a feed that turns out not to be well-formed
 * still gets its 400. A client that stops sending its body, or stops reading the answer, for
 * idleMs loses its connection and its slot.
 */
export function validateRouter(deps: ValidateDeps): Router {
  const router = Router();
  const busy = concurrencyLimit({ max: deps.concurrency, what: 'dry runs' });
  router.post(
    '/v1/validate',
    deps.limit,
    busy,
    bodyIdleTimeout(deps.idleMs),
    bodyPace({ maxMs: deps.bodyMaxMs, minBytesPerSecond: deps.bodyMinBytesPerSecond, graceMs: Math.min(5000, deps.bodyMaxMs / 4) }),
    refuseUnfinishedBodyOnShutdown(deps.shutdown),
    async (req, res) => {
      const input = await readFeedInput(req, deps.feedMaxBytes);
      const spool = new PreviewSpool();
      try {
        const { listings: _inSpool, ...result } = await validateFeed(feedText(input.body), input.context, {
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
        spool.close();
        await input.release();
      }
    },
  );
  return router;
}
