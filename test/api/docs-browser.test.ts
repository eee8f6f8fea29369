import { expect } from 'chai';
import { useServiceAndBrowser } from '../browser.js';

describe('Browser: /docs renders the OpenAPI document in Chromium', function () {
  this.timeout(60_000);
  const rig = useServiceAndBrowser();

  it('shows the API title and version, lists POST /v1/validate and expands it with its request body', async () => {
    const page = await rig.browser.newPage();
    const offsite: string[] = [];
    const errors: string[] = [];
    page.on('request', (req) => {
      if (!req.url().startsWith(rig.svc.url) && !req.url().startsWith('data:')) offsite.push(req.url());
    });
    page.on('pageerror', (err) => errors.push(err.message));
    // The Content-Security-Policy holds: the browser refuses nothing the page needs.
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text());
    });

    await page.goto(`${rig.svc.url}/docs/`);
    await page.locator('.info .title').waitFor();
    expect(await page.locator('.info .title').innerText()).to.contain('0.1.0');

    const validate = page.locator('.opblock-post', { has: page.locator('[data-path="/v1/validate"]') });
    await validate.locator('.opblock-summary').click();
    await validate.locator('.opblock-section-request-body').waitFor();
    expect(await validate.locator('.opblock-section-request-body').innerText()).to.match(/application\/json/);
    // "Try it out" with what it offers: the example dry run, answered 200 with one valid listing.
    await validate.getByRole('button', { name: 'Try it out' }).click();
    await validate.getByRole('button', { name: 'Execute' }).click();
    const live = validate.locator('.live-responses-table tbody tr.response').first();
    await live.waitFor();
    expect((await live.locator('.response-col_status').innerText()).trim(), await live.innerText()).to.equal('200');
    expect(await live.locator('.response-col_description').innerText()).to.match(/"valid": 1/);

    expect(errors, 'page errors').to.deep.equal([]);
    expect(offsite, 'requests that left the service').to.deep.equal([]);
    await page.close();
  });

  it('groups the operations by tag and links the guides, which open as pages of their own', async () => {
    const page = await rig.browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text());
    });
    await page.goto(`${rig.svc.url}/docs/`);
    await page.locator('.info .title').waitFor();
    for (const tag of ['ingestion', 'reads', 'leads', 'admin', 'site', 'system']) await page.locator(`h3#operations-tag-${tag}`).waitFor();
    // Swagger UI opens description links in a new tab: follow the link's own address.
    const href = await page.getByRole('link', { name: 'Validation issue codes' }).getAttribute('href');
    expect(href).to.equal('/guides/issue-codes');
    await page.goto(`${rig.svc.url}${href}`);
    await page.getByRole('heading', { name: 'Validation issue codes', level: 1 }).waitFor();
    expect(await page.locator('table').first().innerText()).to.contain('missing_unique_id');
    await page.getByRole('link', { name: 'API reference' }).waitFor();
    const missing = await fetch(`${rig.svc.url}/guides/nope`);
    expect(missing.status).to.equal(404);
    expect((await missing.json()).error).to.match(/no guide nope; the guides are ingestion, formats/);
    expect(errors, 'page errors').to.deep.equal([]);
    await page.close();
  });
});
