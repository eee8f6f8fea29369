import { type RequestHandler, Router } from 'express';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { feedRequestJson, feedText, readFeedInput } from '../feed-input.js';
import { concurrencyLimit } from '../middleware/concurrency-limit.js';
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
}

/**
 * POST /v1/validate: the dry run. Same pipeline as ingestion; nothing is stored. It needs no key,
 * so it is bounded: a rate limit per client address, a few dry runs at once (checked before the
 * body is read), raw bodies streamed, and the answer capped at maxPreviews previews and maxIssues
 * issues (counts and ok always cover the whole feed). Listing previews are spooled to a temporary
 * file as they are produced and streamed into the answer, so memory does not grow with the feed;
 * the answer is sent once the whole feed is read, so a feed that turns out not to be well-formed
 * still gets its 400.
 */
export function validateRouter(deps: ValidateDeps): Router {
  const router = Router();
  const busy = concurrencyLimit({ max: deps.concurrency, what: 'dry runs' });
  router.post('/v1/validate', deps.limit, busy, feedRequestJson(deps.feedMaxBytes), async (req, res) => {
    const input = readFeedInput(req, deps.feedMaxBytes);
    const spool = new PreviewSpool();
    try {
      const { listings: _inSpool, ...result } = await validateFeed(feedText(input.body), input.context, {
        format: input.format,
        maxPreviews: deps.maxPreviews,
        maxIssues: deps.maxIssues,
        previewSink: spool,
      });
      res.type('application/json');
      res.write(`${JSON.stringify(result).slice(0, -1)},"listings":`);
      await spool.writeArray(res);
      res.end('}');
    } finally {
      spool.close();
    }
  });
  return router;
}
