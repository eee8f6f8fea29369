import { Router } from 'express';
import type { FxProvider } from '../../lib/fx-rates.js';

/** GET /v1/fx: `{ base, asOf, source, rates }` (docs/architecture.md, Site content and FX). */
export function fxRouter(fx: FxProvider): Router {
  const router = Router();
  router.get('/v1/fx', async (_req, res) => {
    res.json(await fx.current());
  });
  return router;
}
