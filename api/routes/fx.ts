import { json } from '../openapi-helpers.js';
import type { RouteSpec } from '../route-registry.js';

/** GET /v1/fx: `{ base, asOf, source, rates }` (docs/architecture.md, Site content and FX). */
export const fxRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/fx',
    operationId: 'getFxRates',
    tag: 'reads',
    auth: 'none',
    summary: 'FX rates: the bundled ECB snapshot (FX_SOURCE=static) or cached live rates with a backup source',
    description:
      'Live rates are refreshed hourly from FX_PRIMARY_URL (ECB daily XML), else FX_BACKUP_URL; when both fail the last good rates (at worst the snapshot) are served. Never an error.',
    responses: { 200: { description: 'Rates', content: json('FxRates') } },
    handle: (deps) => async (_req, res) => {
      res.json(await deps.fx.current());
    },
  },
];
