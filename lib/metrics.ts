import { createServer, type Server } from 'node:http';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The Prometheus metrics of one process (its own registry, so several services in one test
 * process do not mix). The web role serves them at /metrics behind the operator credential; any
 * role also on METRICS_PORT without a credential, for a scraper on the private network.
 */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** Feeds finished by this process: ok, with_invalid (some listings refused), not_well_formed, failed (given up). */
  feeds: Counter<'outcome'>;
  /** Listings decided by this process's ingest jobs, by action (inserted, updated, unchanged, stale_ignored, invalid). */
  listings: Counter<'action'>;
  /** Lead delivery attempts by outcome: delivered, retry (temporary failure), failed (permanent or given up), skipped. */
  leadDeliveries: Counter<'outcome'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer HTTP requests, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    feeds: new Counter({ name: 'feeds_processed_total', help: 'Feeds finished by this process, by outcome', labelNames: ['outcome'], registers: [registry] }),
    listings: new Counter({
      name: 'listings_ingested_total',
      help: 'Listings decided by ingestion in this process, by action',
      labelNames: ['action'],
      registers: [registry],
    }),
    leadDeliveries: new Counter({ name: 'lead_deliveries_total', help: 'Lead delivery attempts by outcome', labelNames: ['outcome'], registers: [registry] }),
  };
}

/** The read replica's state and lag (DATABASE_READ_URL), read when scraped; a lag is unset while the replica does not answer. */
export function replicaGauges(metrics: Metrics, replica: { state(): { state: string; lagSeconds: number | null; lagBytes: number | null } }): void {
  const gauge = (name: string, help: string, read: () => number | null) =>
    new Gauge({
      name,
      help,
      registers: [metrics.registry],
      collect() {
        const value = read();
        if (value === null) this.reset();
        else this.set(value);
      },
    });
  gauge('read_replica_up', 'Whether the read replica answers (1) and takes the public reads, or not (0: they go to the primary)', () =>
    replica.state().state === 'ok' ? 1 : 0,
  );
  gauge(
    'read_replica_lag_seconds',
    'Age of the last transaction the read replica replayed while it has WAL to replay (0: caught up)',
    () => replica.state().lagSeconds,
  );
  gauge('read_replica_lag_bytes', "Bytes of the primary's WAL the read replica has not replayed", () => replica.state().lagBytes);
}

/** Queue depths, read when scraped (a queue that cannot be read leaves its gauge unset). */
export function queueDepthGauge(metrics: Metrics, queues: { name: string; counts(): Promise<Record<string, number>> }[]): void {
  new Gauge({
    name: 'queue_jobs',
    help: 'Jobs in each queue by state, read when scraped',
    labelNames: ['queue', 'state'],
    registers: [metrics.registry],
    async collect() {
      this.reset();
      for (const queue of queues) {
        const counts = await queue.counts().catch(() => null);
        for (const [state, n] of Object.entries(counts ?? {})) this.set({ queue: queue.name, state }, n);
      }
    },
  });
}

/** METRICS_PORT: the process's metrics on a port of their own, without a credential (keep it private). */
export async function serveMetrics(metrics: Metrics, port: number): Promise<Server> {
  const server = createServer(async (req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'only GET /metrics is served here' }));
      return;
    }
    res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(await metrics.registry.metrics());
  });
  await new Promise<void>((resolve) => server.listen(port, resolve));
  return server;
}
