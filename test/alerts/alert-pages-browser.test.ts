import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { seriousViolations } from '../axe.js';
import { launchBrowser } from '../browser.js';
import { repoRoot } from '../helpers.js';
import { startTestService, type TestService } from '../service.js';

const SCREENSHOTS = resolve(repoRoot, 'test-artifacts/alerts');

/** The pages an alert mail's links open, as a subscriber uses them in a browser (desktop and phone). */
describe('Alert pages in a browser: confirm, list, delete, unsubscribe', function () {
  this.timeout(120_000);
  let svc: TestService;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const tokens: string[] = [];

  const subscribe = async (search: Record<string, unknown>, frequency = 'instant') => {
    const res = await fetch(`${svc.url}/v1/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'buyer@home.example', consent: true, search, frequency, timeZone: 'Australia/Melbourne' }),
    });
    expect(res.status).to.equal(202);
  };

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    svc = await startTestService({ database: 'pglite' });
    await subscribe({ locality: ['Fitzroy', 'Collingwood'], category: 'residential', minBedrooms: 3, maxPrice: 900000, saleMode: 'sale' });
    await subscribe({ postcode: '3121', saleMode: 'rent', maxPrice: 650 }, 'daily');
    for (const r of await svc.db('alert_subscriptions').orderBy('created_at').select('token')) tokens.push(r.token);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  });
  after(async () => {
    await browser?.close();
    await svc?.close();
  });
  afterEach(() => expect(errors, 'page errors').to.deep.equal([]));
  const shot = (name: string) => page.screenshot({ path: resolve(SCREENSHOTS, `${name}.png`), fullPage: true });

  it('opening the confirmation link changes nothing; its button confirms', async () => {
    await page.goto(`${svc.url}/alerts/confirm?token=${tokens[0]}`);
    await page.getByRole('heading', { name: 'Confirm your alert', level: 1 }).waitFor();
    expect(await page.locator('body').innerText()).to.include('Fitzroy, Collingwood; residential; 3+ bedrooms; up to 900,000; for sale');
    expect((await svc.db('alert_subscriptions').where({ token: tokens[0] }).first('status')).status).to.equal('pending');
    expect(await seriousViolations(page)).to.deep.equal([]);
    await shot('01-confirm');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('heading', { name: 'Your alert is on', level: 1 }).waitFor();
    expect((await svc.db('alert_subscriptions').where({ token: tokens[0] }).first('status')).status).to.equal('confirmed');
    await shot('02-confirmed');
  });

  it('lists the address’s alerts and deletes one, on a phone', async () => {
    await page.setViewportSize({ width: 390, height: 780 });
    await page.getByRole('link', { name: 'Your alerts' }).click();
    await page.getByRole('heading', { name: 'Your alerts', level: 1 }).waitFor();
    const items = page.locator('li');
    expect(await items.count()).to.equal(2);
    expect(await items.nth(1).innerText())
      .to.include('3121; up to 650 a week; for rent')
      .and.include('waiting for confirmation');
    expect(await seriousViolations(page)).to.deep.equal([]);
    await shot('03-manage-phone');
    await items.nth(1).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Your alerts', level: 1 }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('li').length === 1);
    expect(await svc.db('alert_subscriptions').count({ n: '*' }).first()).to.deep.equal({ n: 1 });
  });

  it('unsubscribes from the page the mail links to, and says so when the link is used again', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${svc.url}/alerts/unsubscribe?token=${tokens[0]}`);
    await page.getByRole('heading', { name: 'Unsubscribe', level: 1 }).waitFor();
    await shot('04-unsubscribe');
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await page.getByRole('heading', { name: 'You are unsubscribed', level: 1 }).waitFor();
    expect(await svc.db('alert_subscriptions').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
    await page.goto(`${svc.url}/alerts/manage?token=${tokens[0]}`);
    await page.getByRole('heading', { name: 'This link no longer works', level: 1 }).waitFor();
    // The page is answered with its status, 404, which the browser reports; nothing else went wrong.
    expect(errors.splice(0)).to.deep.equal(['Failed to load resource: the server responded with a status of 404 (Not Found)']);
    await shot('05-gone');
  });
});
