import { expect } from 'chai';
import { createMetrics, serveMetrics } from '../../lib/metrics.js';
import { feed } from '../helpers.js';
import { activeKey, officeListing, pushFeed } from '../ingest/client.js';
import { freePort } from '../processes.js';
import { OPERATOR, startTestService, type TestService } from '../service.js';

describe('Prometheus metrics (PostgreSQL + Redis)', function () {
  this.timeout(30_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ database: 'postgres', redis: true });
  });
  after(() => svc.close());

  const scrape = async () => {
    const res = await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${OPERATOR}` } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };
  const value = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}()[\].+*?^$|\\]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

  it('are behind the operator credential', async () => {
    expect((await fetch(`${svc.url}/metrics`)).status).to.equal(401);
  });

  it('count requests by route pattern and status, never by raw path, with latency histograms', async () => {
    await fetch(`${svc.url}/v1/listings/OFF1/NOPE`);
    await fetch(`${svc.url}/v1/no-such/route-${Date.now()}`);
    const text = await scrape();
    expect(value(text, 'http_requests_total{method="GET",route="/v1/listings/:office/:uniqueId",status="404"}')).to.equal(1);
    expect(value(text, 'http_requests_total{method="GET",route="unmatched",status="404"}')).to.be.at.least(1);
    expect(text).not.to.contain('/v1/no-such');
    expect(text).not.to.contain('OFF1/NOPE');
    expect(text).to.match(/^http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/v1\/listings\/:office\/:uniqueId",status="404"\} \d+$/m);
  });

  it('count feeds by outcome and listings by action, and show queue depths', async () => {
    const key = await activeKey(svc.db, ['OFF1']);
    const res = await pushFeed(
      svc.url,
      key,
      feed(
        officeListing('OFF1', 'M1'),
        officeListing('OFF1', 'M2'),
        '<residential modTime="2024-01-01" status="current"><agentID>OFF1</agentID></residential>',
      ),
    );
    expect(res.status).to.equal(200);
    // The worker counts a feed just after marking it done, and the answer may come first.
    let text = await scrape();
    for (let i = 0; i < 100 && Number.isNaN(value(text, 'feeds_processed_total{outcome="with_invalid"}')); i += 1) {
      await new Promise((r) => setTimeout(r, 50));
      text = await scrape();
    }
    expect(value(text, 'feeds_processed_total{outcome="with_invalid"}')).to.equal(1);
    expect(value(text, 'listings_ingested_total{action="inserted"}')).to.equal(2);
    expect(value(text, 'listings_ingested_total{action="invalid"}')).to.equal(1);
    // Read from the queues when scraped (the job itself may still be finishing: its count is 0 or 1).
    for (const state of ['waiting', 'active', 'completed', 'failed'])
      expect(value(text, `queue_jobs{queue="ingest",state="${state}"}`), state).to.be.within(0, 1);
    expect(value(text, 'queue_jobs{queue="lead-delivery",state="waiting"}')).to.equal(0);
    expect(text).to.match(/^process_cpu_seconds_total /m);
  });

  it("METRICS_PORT serves a role's metrics on a port of their own, and nothing else there", async () => {
    const metrics = createMetrics();
    metrics.leadDeliveries.inc({ outcome: 'delivered' });
    const port = await freePort();
    const server = await serveMetrics(metrics, port);
    try {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(value(text, 'lead_deliveries_total{outcome="delivered"}')).to.equal(1);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).to.equal(404);
    } finally {
      server.close();
    }
  });
});
