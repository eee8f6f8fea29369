import type { RequestHandler } from 'express';
import type { Metrics } from '../../lib/metrics.js';

/**
 * Counts every answer and times it, labelled by the route pattern that served it
 * (`/v1/listings/:office/:uniqueId`), never by the URL: a client cannot mint new label values.
 * Requests no route matched are `unmatched`; mounted apps (the docs, the queue board) by their mount.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : req.baseUrl || 'unmatched';
      const labels = { method: req.method, route, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
