import express, { Router } from 'express';
import { validateReaxmlFeed } from '../../pipeline/reaxml/validate-reaxml-feed.js';
import { feedText, readFeedInput } from '../feed-input.js';

/** POST /v1/validate: the dry run. Same pipeline as ingestion; nothing is stored. */
export function validateRouter(options: { feedMaxBytes: number }): Router {
  const router = Router();
  router.post('/v1/validate', express.json({ limit: options.feedMaxBytes }), async (req, res) => {
    const input = readFeedInput(req, options.feedMaxBytes);
    const result = await validateReaxmlFeed(feedText(input.body), input.context);
    res.json(result);
  });
  return router;
}
