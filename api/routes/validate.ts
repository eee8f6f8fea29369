import { type RequestHandler, Router } from 'express';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { feedRequestJson, feedText, readFeedInput } from '../feed-input.js';
import { concurrencyLimit } from '../middleware/concurrency-limit.js';

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
 * issues (counts and ok always cover the whole feed).
 */
export function validateRouter(deps: ValidateDeps): Router {
  const router = Router();
  const busy = concurrencyLimit({ max: deps.concurrency, what: 'dry runs' });
  router.post('/v1/validate', deps.limit, busy, feedRequestJson(deps.feedMaxBytes), async (req, res) => {
    const input = readFeedInput(req, deps.feedMaxBytes);
    const result = await validateFeed(feedText(input.body), input.context, { format: input.format, maxPreviews: deps.maxPreviews, maxIssues: deps.maxIssues });
    res.json(result);
  });
  return router;
}
