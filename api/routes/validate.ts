import { Router } from 'express';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { feedRequestJson, feedText, readFeedInput } from '../feed-input.js';

/** POST /v1/validate: the dry run. Same pipeline as ingestion; nothing is stored. */
export function validateRouter(options: { feedMaxBytes: number }): Router {
  const router = Router();
  router.post('/v1/validate', feedRequestJson(options.feedMaxBytes), async (req, res) => {
    const input = readFeedInput(req, options.feedMaxBytes);
    const result = await validateFeed(feedText(input.body), input.context, { format: input.format });
    res.json(result);
  });
  return router;
}
