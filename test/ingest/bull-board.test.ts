import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../browser.js';
import { feed } from '../helpers.js';
import { OPERATOR, startTestService, type TestService } from '../service.js';
import { activeKey, officeListing, pushFeed } from './client.js';

describe('Browser: Bull Board at /admin/queues behind the operator credential', function () {
  this.timeout(60_000);
  let svc: TestService;
  let browser: Browser;
  before(async () => {
    svc = await startTestService({ database: 'postgres', redis: true });
    browser = await launchBrowser();
    const key = await activeKey(svc.db, ['OFF1']);
    expect((await pushFeed(svc.url, key, feed(officeListing('OFF1', 'A')))).status).to.equal(200);
  });
  after(async () => {
    await browser?.close();
    await svc?.close();
  });

  it('reports queue depths in the dashboard when REDIS_URL is set', async () => {
    const stats = await (await fetch(`${svc.url}/v1/admin/stats`, { headers: { authorization: `Bearer ${OPERATOR}` } })).json();
    expect(stats.queues.ingest).to.include({ waiting: 0, active: 0 });
    expect(stats.queues.ingest.completed).to.be.at.least(1);
    expect(stats.queues.leadDelivery).to.include({ waiting: 0 });
  });

  it('asks browsers for credentials and refuses wrong ones', async () => {
    const none = await fetch(`${svc.url}/admin/queues`);
    expect(none.status).to.equal(401);
    expect(none.headers.get('www-authenticate')).to.match(/^Basic/);
    expect(await none.json()).to.have.property('error');
    const wrong = await fetch(`${svc.url}/admin/queues`, { headers: { authorization: `Basic ${Buffer.from('ops:wrong').toString('base64')}` } });
    expect(wrong.status).to.equal(401);
    const bearer = await fetch(`${svc.url}/admin/queues`, { headers: { authorization: `Bearer ${OPERATOR}` } });
    expect(bearer.status).to.equal(200);
  });

  it('refuses state-changing board requests a page on another site could send, and does not announce Express', async () => {
    const basic = `Basic ${Buffer.from(`operator:${OPERATOR}`).toString('base64')}`;
    const before = await svc.runtime.ingestQueue.counts();
    const add = (headers: Record<string, string>) =>
      fetch(`${svc.url}/admin/queues/api/queues/ingest/add`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'text/plain', ...headers },
        body: '{"name":"x","data":{"feedId":"00000000-0000-4000-8000-000000000000"}}',
      });
    const tries: Record<string, string>[] = [
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
      {},
    ];
    for (const headers of tries) {
      const res = await add(headers);
      expect(res.status, JSON.stringify(headers)).to.equal(403);
      expect((await res.json()).error).to.match(/another site|same origin/);
    }
    expect(await svc.runtime.ingestQueue.counts(), 'no job was added').to.deep.equal(before);
    // The board's own page (same origin) still works: pause and resume the queue.
    const host = new URL(svc.url).host;
    for (const action of ['pause', 'resume']) {
      const res = await fetch(`${svc.url}/admin/queues/api/queues/ingest/${action}`, {
        method: 'PUT',
        headers: { authorization: basic, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' },
      });
      expect(res.status, action).to.be.oneOf([200, 204]);
    }
    for (const path of ['/admin/queues', '/admin/queues/api/queues']) {
      const res = await fetch(`${svc.url}${path}`, { headers: { authorization: basic } });
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('x-powered-by'), path).to.equal(null);
    }
  });

  it('shows the ingest queue with its completed job to an operator signed in with the token as password', async () => {
    const context = await browser.newContext({ httpCredentials: { username: 'operator', password: OPERATOR } });
    const page = await context.newPage();
    await page.goto(`${svc.url}/admin/queues`);
    await page.getByText('ingest', { exact: true }).first().waitFor();
    await page.getByText('ingest', { exact: true }).first().click();
    await page
      .getByRole('link', { name: /completed/i })
      .first()
      .click();
    const { id } = await svc.db('feed_events').first('id');
    await page.getByText(`ingest-${id}`).waitFor();
    await context.close();
  });
});
