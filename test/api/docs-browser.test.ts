import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../browser.js';
import { startTestService, type TestService } from '../service.js';

describe('Browser: /docs renders the OpenAPI document in Chromium', function () {
  this.timeout(60_000);
  let server: TestService;
  let browser: Browser;

  before(async () => {
    server = await startTestService({ database: 'pglite' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows the API title and version, lists POST /v1/validate and expands it with its request body', async () => {
    const page = await browser.newPage();
    const offsite: string[] = [];
    const errors: string[] = [];
    page.on('request', (req) => {
      if (!req.url().startsWith(server.url) && !req.url().startsWith('data:')) offsite.push(req.url());
    });
    page.on('pageerror', (err) => errors.push(err.message));
    // The Content-Security-Policy holds: the browser refuses nothing the page needs.
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text());
    });

    await page.goto(`${server.url}/docs/`);
    await page.locator('.info .title').waitFor();
    expect(await page.locator('.info .title').innerText()).to.contain('0.1.0');

    const validate = page.locator('.opblock-post', { has: page.locator('[data-path="/v1/validate"]') });
    await validate.locator('.opblock-summary').click();
    await validate.locator('.opblock-section-request-body').waitFor();
    expect(await validate.locator('.opblock-section-request-body').innerText()).to.match(/application\/json/);
    await validate.getByRole('button', { name: 'Try it out' }).waitFor();

    expect(errors, 'page errors').to.deep.equal([]);
    expect(offsite, 'requests that left the service').to.deep.equal([]);
    await page.close();
  });
});
