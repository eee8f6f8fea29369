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
