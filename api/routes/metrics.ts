import type { RouteSpec } from '../route-registry.js';

/** GET /metrics: this process's Prometheus metrics, for operators (METRICS_PORT serves them apart without a credential). */
export const metricsRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    tag: 'system',
    auth: 'operator',
    summary: 'Prometheus metrics of this process (operators)',
    description:
      'The Prometheus text exposition: HTTP requests and their durations by route and status, feeds and listings processed, lead deliveries, queue depths, the read replica’s state and lag when DATABASE_READ_URL is set, and Node.js process figures. METRICS_PORT serves the same on a port of its own without a credential, for a scraper inside the network.',
    responses: { 200: { description: 'The metrics', content: { 'text/plain': { schema: { type: 'string' } } } } },
    handle:
      ({ metrics }) =>
      async (_req, res) => {
        res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
      },
  },
];
