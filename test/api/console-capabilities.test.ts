import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createOperatorToken, revokeOperatorToken } from '../../db/operators.js';
import { COLOUR_RULES, seriousViolations } from '../axe.js';
import { launchBrowser } from '../browser.js';
import { feed, repoRoot } from '../helpers.js';
import { activeKey, admin, pushFeed } from '../ingest/client.js';
import { OPERATOR, startTestService, type TestService } from '../service.js';
import { type SmtpSink, startSmtpSink } from '../smtp-sink.js';

const SCREENSHOTS = resolve(repoRoot, 'test-artifacts/console');

/** A listing of OFF1; `email` false leaves its agent without an address (its leads have nowhere to go). */
const listing = (id: string, agent: string, price: number, email = true) =>
  `<residential modTime="2024-03-0${(price % 9) + 1}-10:00:00" status="current"><agentID>OFF1</agentID><uniqueID>${id}</uniqueID>` +
  `<listingAgent id="1"><name>${agent}</name>${email ? `<email>${agent.split(' ')[0].toLowerCase()}@agency.example</email>` : ''}</listingAgent>` +
  `<headline>Home ${id}</headline><price display="no">${price}</price>` +
  '<images><img id="m" url="https://images.example.com/hero.jpg" format="jpg"/></images>' +
  `<address><streetNumber>${price % 50}</streetNumber><street>High Street</street><suburb>Fitzroy</suburb><state>VIC</state><postcode>3065</postcode></address></residential>`;

const VIEWS: [string, string][] = [
  ['dashboard', 'Dashboard'],
  ['keys', 'Feed keys'],
  ['feeds', 'Feeds'],
  ['quarantine', 'Quarantine'],
  ['listings', 'Listings'],
  ['leads', 'Leads'],
  ['offices', 'Offices'],
  ['webhooks', 'Webhooks'],
  ['site', 'Site'],
  ['audit', 'Audit log'],
];

describe('Browser: console lists, listing page, keys, leads, charts, phone, keyboard, axe and sign-in (PostgreSQL + Redis + SMTP)', function () {
  this.timeout(120_000);
  let svc: TestService;
  let smtp: SmtpSink;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let keyId: string;
  let deadLead: string;
  const errors: string[] = [];

  const watch = (p: Page) => {
    p.on('pageerror', (err) => errors.push(err.message));
    p.on('console', (msg) => {
      // Refusals the page shows are 4xx answers; the listings' photos live on hosts a closed network cannot resolve.
      if (msg.type() === 'error' && !/status of 4\d\d|ERR_NAME_NOT_RESOLVED/.test(msg.text())) errors.push(msg.text());
    });
    // The console asks in the page; a browser dialog would be dismissed, and its action not done.
    p.on('dialog', (dialog) => void dialog.dismiss());
    return p;
  };
  const shot = (name: string, p = page) => p.screenshot({ path: resolve(SCREENSHOTS, `${name}.png`), fullPage: true });
  const go = async (hash: string, heading: string, p = page) => {
    await p.goto(`${svc.url}/console#/${hash}`);
    await p.reload();
    await p.getByRole('heading', { name: heading, level: 1 }).waitFor();
  };
  const signIn = async (p: Page, token = OPERATOR, remember = false) => {
    await p.goto(`${svc.url}/console`);
    await p.getByLabel('Operator token').fill(token);
    if (remember) await p.getByLabel('Keep me signed in on this browser').check();
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  };

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    smtp = await startSmtpSink();
    svc = await startTestService({ database: 'postgres', redis: true, env: { SMTP_URL: smtp.url } });
    const key = await activeKey(svc.db, ['OFF1']);
    keyId = (await svc.db('feed_keys').first('id')).id;
    const listings = [listing('A1', 'Ann Smith', 900000), listing('B2', 'Bob Jones', 500000), listing('C3', 'Cara Lee', 700000, false)];
    expect((await pushFeed(svc.url, key, feed(...listings))).status).to.equal(200);
    const withdrawn = listing('B2', 'Bob Jones', 500000).replace('status="current"', 'status="withdrawn"').replace('2024-03-0', '2024-04-0');
    const invalid =
      '<residential modTime="2024-03-02-10:00:00" status="current"><agentID>OFF1</agentID><uniqueID>NOADDR</uniqueID><headline>x</headline></residential>';
    expect((await pushFeed(svc.url, key, feed(withdrawn, invalid))).status).to.equal(200);
    // A lead with nowhere to go (C3's agent has no email, OFF1 no lead email), one refused for an unknown listing, one from a blocked sender.
    const enquire = (uniqueId: string, email: string) =>
      fetch(`${svc.url}/v1/leads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ listing: { office: 'OFF1', uniqueId }, contact: { email, name: 'Jo Bloggs', message: 'Still available?' }, consent: true }),
      });
    const dead = await enquire('C3', 'jo@home.example');
    expect(dead.status).to.equal(202);
    deadLead = (await dead.json()).id;
    expect((await enquire('NOPE', 'jo@home.example')).status).to.equal(404);
    expect((await admin(svc.url, 'POST', '/v1/admin/blocklist', { kind: 'email', value: 'spam@bulk.example' })).status).to.equal(200);
    expect((await enquire('A1', 'spam@bulk.example')).status).to.equal(403);
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    page = watch(await context.newPage());
  });
  after(async () => {
    await browser?.close();
    await svc?.close();
    await smtp?.close();
  });
  afterEach(() => expect(errors, 'page errors').to.deep.equal([]));

  it('signs in once per browser session: another tab shares the sign-in, signing out in one signs out all', async () => {
    await signIn(page);
    const second = watch(await context.newPage());
    await second.goto(`${svc.url}/console#/feeds`);
    await second.getByRole('heading', { name: 'Feeds', level: 1 }).waitFor();
    expect(await second.evaluate(() => localStorage.getItem('operatorToken')), 'kept in the tab only unless asked').to.equal(null);
    await second.getByRole('link', { name: 'Sign out' }).click();
    await second.getByLabel('Operator token').waitFor();
    await page.getByText('Signed out in another tab.').waitFor();
    await second.close();
    await signIn(page);
  });

  it('sends the operator back to sign-in, with the reason, when the token is revoked', async () => {
    const named = await createOperatorToken(svc.db, 'casey');
    const other = watch(await (await browser.newContext()).newPage());
    await signIn(other, named.token, true);
    expect(await other.evaluate(() => localStorage.getItem('operatorToken'))).to.equal(named.token);
    await revokeOperatorToken(svc.db, 'casey');
    // The next request finds the token revoked: this click's, or the dashboard's refresh (every 10 s)
    // when that comes first, which takes the link away before it can be clicked.
    const ended = other.getByText('Your session ended: the token is no longer accepted. Sign in again.');
    await Promise.race([
      other
        .getByRole('link', { name: 'Audit log' })
        .click()
        .catch(() => undefined),
      ended.waitFor(),
    ]);
    await ended.waitFor();
    expect(await other.getByLabel('Operator token').isVisible()).to.equal(true);
    expect(await other.evaluate(() => localStorage.getItem('operatorToken'))).to.equal(null);
    await other.context().close();
  });

  it('sorts and pages the feeds, with the total, and sorts the listings by key', async () => {
    await go('feeds', 'Feeds');
    await page.locator('tr[data-feed]').first().waitFor();
    expect(await page.getByText('1–2 of 2 feed(s)').isVisible()).to.equal(true);
    const ids = async () => page.locator('tr[data-feed]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-feed')));
    const newestFirst = await ids();
    await page.getByRole('button', { name: /^Received/ }).click();
    await page.locator('th[aria-sort="ascending"]').filter({ hasText: 'Received' }).waitFor();
    expect(await ids()).to.deep.equal([...newestFirst].reverse());
    await page.getByRole('button', { name: /^Counts/ }).click();
    await page.locator('th[aria-sort="descending"]').filter({ hasText: 'Counts' }).waitFor();
    expect((await page.locator('tr[data-feed] > td:nth-child(2)').first().innerText()).trim()).to.equal('with invalid');
    await go('listings', 'Listings');
    await page.getByRole('button', { name: /^Listing/ }).click();
    await page.locator('th[aria-sort="ascending"]').filter({ hasText: 'Listing' }).waitFor();
    expect(await page.locator('tr[data-listing]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-listing')))).to.deep.equal([
      'OFF1/A1',
      'OFF1/B2',
      'OFF1/C3',
    ]);
    // Search by an agent's name; filter by status.
    await page.getByLabel('Search').fill('cara');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1–1 of 1 listing(s)').waitFor();
    expect(await page.locator('tr[data-listing]').getAttribute('data-listing')).to.equal('OFF1/C3');
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Status').selectOption('withdrawn');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('tr[data-listing="OFF1/B2"]').waitFor();
    expect(await page.locator('tr[data-listing]').count()).to.equal(1);
    await shot('11-listings-sorted');
  });

  it('shows one listing readably: price as the agent chose, public or not and why, the feed that last wrote it, its issues and status history', async () => {
    await go('listings/OFF1/B2', 'Listing');
    await page.locator('#visibility').waitFor();
    expect(await page.locator('#visibility').innerText()).to.equal(
      'Not in public search: its feed withdrew it: public reads answer that it is no longer listed.',
    );
    expect(await page.getByText('withheld: the public never sees the amount', { exact: false }).isVisible()).to.equal(true);
    expect(await page.locator('img.hero').getAttribute('src')).to.equal('https://images.example.com/hero.jpg');
    expect(await page.getByText('Bob Jones · bob@agency.example').isVisible()).to.equal(true);
    const history = page.getByRole('region', { name: 'Status history' });
    expect((await history.locator('tbody tr td').allInnerTexts()).slice(1, 3).map((t) => t.trim())).to.deep.equal(['active', 'withdrawn']);
    await shot('12-listing-detail');
    // A1 was written by the first feed only.
    await go('listings/OFF1/A1', 'Listing');
    await page.locator('#visibility').waitFor();
    expect(await page.locator('#visibility').innerText()).to.equal('Public: in search, and read by its address.');
    const first = (await svc.db('feed_events').orderBy('created_at').first('id')).id as string;
    expect(await page.locator('.kv').filter({ hasText: 'Newest feed carrying it' }).innerText())
      .to.contain(`feed ${first.slice(0, 8)}`)
      .and.to.contain('which inserted it');
    await page.getByRole('button', { name: 'Hide' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Hide' }).click();
    await page.locator('#visibility').filter({ hasText: 'an operator hid it' }).waitFor();
  });

  it("edits a key's offices, with the server's refusal next to the field, and shows its last use", async () => {
    await fetch(`${svc.url}/v1/feeds/whoami`, { headers: { authorization: `Bearer ${'x'.repeat(10)}` } });
    await go('keys', 'Feed keys');
    const row = page.locator(`tr[data-key="${keyId}"]`);
    expect(await row.locator('td').nth(7).innerText()).not.to.equal('never');
    await row.getByRole('button', { name: 'Edit offices' }).click();
    expect(await row.getByRole('button', { name: 'Edit offices' }).getAttribute('aria-expanded')).to.equal('true');
    const field = page.getByLabel('Offices of this key (comma-separated)');
    await field.fill('OFF1, bad office!!');
    await page.getByRole('button', { name: 'Save offices' }).click();
    await page.locator('.field-error').filter({ hasText: 'is not an office id' }).waitFor();
    expect(await field.getAttribute('aria-invalid')).to.equal('true');
    await shot('13-key-offices-refused');
    await field.fill('OFF1, OFF9');
    await page.getByRole('button', { name: 'Save offices' }).click();
    await page.getByText('Offices of Test CRM saved: OFF1, OFF9.').waitFor();
    expect((await svc.db('feed_keys').where({ id: keyId }).first('office_ids')).office_ids).to.deep.equal(['OFF1', 'OFF9']);
    // Create-key refusals go next to their fields too.
    await page.getByLabel('Client').fill('Refused Ltd');
    await page.getByLabel('Alert email').fill('not-an-email');
    await page.getByLabel('Offices (comma-separated)').fill('OFF2');
    await page.getByRole('button', { name: 'Create active key' }).click();
    await page.locator('.field.invalid').filter({ hasText: 'Alert email' }).locator('.field-error').waitFor();
  });

  it('shows the sender, sends an undeliverable lead once the office has a lead email, blocks a sender, and counts refused enquiries', async () => {
    await go('leads', 'Leads');
    await page.locator('#refusals').waitFor();
    const refusals = await page.locator('#refusals').innerText();
    expect(refusals).to.match(/refused in the last 7 days: 2/);
    expect(refusals).to.contain('unknown listing: 1').and.to.contain('blocked sender: 1');
    const row = page.locator(`tr[data-lead="${deadLead}"]`);
    expect(await row.locator('td').nth(2).innerText()).to.contain('jo@home.example');
    await row.getByRole('button', { name: 'Route again and send' }).click();
    await page.getByRole('alert').filter({ hasText: 'still has nowhere to go' }).waitFor();
    expect((await admin(svc.url, 'PUT', '/v1/admin/offices/OFF1', { leadEmail: 'office@agency.example' })).status).to.equal(200);
    await row.getByRole('button', { name: 'Route again and send' }).click();
    await page.getByText('Lead queued for delivery again.').waitFor();
    for (let i = 0; i < 100 && (await svc.db('leads').where({ id: deadLead }).first('status')).status !== 'delivered'; i += 1)
      await new Promise((r) => setTimeout(r, 50));
    expect(await svc.db('leads').where({ id: deadLead }).first('status', 'recipient')).to.deep.equal({
      status: 'delivered',
      recipient: 'office@agency.example',
    });
    await row.getByRole('button', { name: 'Block sender' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Block' }).click();
    await page.getByText('jo@home.example blocked.').waitFor();
    await page.locator('tr[data-block="jo@home.example"]').waitFor();
    await shot('14-leads');
  });

  it('draws the dashboard charts from what the service keeps, with the figures as a table', async () => {
    await go('dashboard', 'Dashboard');
    for (const id of ['chart-feeds', 'chart-applied', 'chart-invalid', 'chart-leads']) await page.locator(`#${id} canvas`).waitFor();
    // The legends name the series, with no placeholder values ("Day: —", "ok: --") before the cursor moves.
    const legend = (await page.locator('#chart-feeds .u-legend').innerText()).trim();
    expect(legend).to.not.match(/—|--/);
    expect(legend).to.contain('ok');
    await page.locator('#chart-feeds summary').click();
    const today = page.locator('#chart-feeds tbody tr').last();
    const header = (await page.locator('#chart-feeds thead th').allInnerTexts()).map((t) => t.trim());
    const cells = (await today.locator('td').allInnerTexts()).map((t) => t.trim());
    const figures = Object.fromEntries(header.map((h, i) => [h, cells[i]]));
    expect(figures).to.include({ ok: '1', 'with invalid': '1' });
    await shot('15-dashboard-charts');
  });

  it('edits the site as forms: a refusal next to the field, every locale, a preview', async () => {
    await go('site', 'Site');
    await page.getByLabel('Slug').fill('Not A Slug');
    await page.getByLabel('Title', { exact: true }).fill('Über uns');
    await page.getByLabel('Add a locale').fill('de');
    await page.getByRole('button', { name: 'Add locale' }).click();
    await page.getByLabel('Title (de)').fill('Über uns');
    await page.getByLabel('Body (de)').fill('Wir listen Häuser.');
    await page.getByLabel('Title (en-AU)').fill('About us');
    await page.getByLabel('Body (en-AU)').fill('We list homes.');
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.locator('.field.invalid').filter({ hasText: 'Slug' }).locator('.field-error').waitFor();
    expect(await page.getByLabel('Slug').getAttribute('aria-invalid')).to.equal('true');
    await page.getByLabel('Preview locale').selectOption('de');
    await page.getByRole('complementary', { name: 'Preview' }).getByText('Wir listen Häuser.').waitFor();
    await page.getByLabel('Slug').fill('about-us');
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.getByText('Draft about-us created.').waitFor();
    const stored = await svc.db('site_pages').where({ slug: 'about-us' }).first('title');
    expect(stored.title).to.deep.equal({ 'en-AU': 'About us', de: 'Über uns' });
    // A setting by its named fields, and any other field as a name and a value.
    await page.getByLabel('Site name').fill('Fitzroy Homes');
    const identity = page.getByRole('form', { name: 'Setting identity' });
    await identity.getByText(/^Other fields/).click();
    await identity.getByLabel('identity field name').first().fill('name');
    await identity.getByLabel('identity value').first().fill('Fitzroy Estates');
    await page.getByRole('button', { name: 'Save identity' }).click();
    // The same field twice (named and as a row) is refused next to the row.
    await identity.getByText('name is named twice.').waitFor();
    await identity.getByLabel('identity field name').first().fill('footerNote');
    await page.getByRole('button', { name: 'Save identity' }).click();
    await page.getByText('identity saved.').waitFor();
    expect((await (await fetch(`${svc.url}/v1/site`)).json()).settings.identity).to.deep.equal({ name: 'Fitzroy Homes', footerNote: 'Fitzroy Estates' });
    await shot('16-site-forms');
  });

  it('works on a 390 px phone: navigation behind a Menu button (aria-expanded), tables as cards', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await go('feeds', 'Feeds');
      const menu = page.getByRole('button', { name: 'Menu' });
      expect(await menu.getAttribute('aria-expanded')).to.equal('false');
      expect(await page.getByRole('link', { name: 'Leads' }).isVisible()).to.equal(false);
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).to.equal('true');
      await page.getByRole('link', { name: 'Leads' }).click();
      await page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, 'nothing wider than the phone').to.be.at.most(390);
      for (const [view, title] of VIEWS) {
        await go(view, title);
        await page.waitForLoadState('networkidle');
        expect(await page.evaluate(() => document.documentElement.scrollWidth), `${view} fits the phone`).to.be.at.most(390);
        // The bar holding the Menu button keeps its own height however short the page is.
        const bar = await page.locator('header.top').boundingBox();
        expect(bar?.height, `${view}: the top bar's height`).to.be.below(80);
        await shot(`phone-${view}`);
      }
    } finally {
      await page.setViewportSize({ width: 1360, height: 900 });
    }
  });

  it('is usable from the keyboard: a skip link first, focus visible', async () => {
    await go('feeds', 'Feeds');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('main');
    await page.keyboard.press('Tab');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle);
    expect(outline).to.equal('solid');
  });

  it('follows a dark system setting', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await go('dashboard', 'Dashboard');
      await page.locator('#chart-feeds canvas').waitFor();
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).to.equal('rgb(15, 21, 28)');
      await shot('17-dashboard-dark');
      await go('feeds', 'Feeds');
      await shot('18-feeds-dark');
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });

  it('has no serious or critical axe-core violations on any console page, light or dark, nor on /developer and /docs', async function () {
    // Thirty pages through axe: about a minute on a quiet machine, and more when both cores are busy.
    this.timeout(360_000);
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [view, title] of [...VIEWS, ['listings/OFF1/B2', 'Listing'] as [string, string]]) {
        await go(view, title);
        await page.waitForLoadState('networkidle');
        // The dark scheme changes the console's colour properties and nothing else (console.css):
        // every rule in light, the rules that read colours in dark.
        for (const v of await seriousViolations(page, scheme === 'dark' ? COLOUR_RULES : undefined)) found.push(`${scheme} ${view}: ${v}`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    const signInPage = watch(await (await browser.newContext()).newPage());
    await signInPage.goto(`${svc.url}/console`);
    await signInPage.getByLabel('Operator token').waitFor();
    for (const v of await seriousViolations(signInPage)) found.push(`sign-in: ${v}`);
    for (const path of ['/developer', '/docs/']) {
      await signInPage.goto(`${svc.url}${path}`);
      await signInPage.waitForLoadState('networkidle');
      for (const v of await seriousViolations(signInPage)) found.push(`${path}: ${v}`);
    }
    // The API reference with every operation opened: parameters, examples and answers included.
    const controls = signInPage.locator('.opblock-summary-control');
    const count = await controls.count();
    // Every fifth operation (one or more of each group): query menus, bodies, examples and answers.
    for (let i = 0; i < count; i += 5) await controls.nth(i).click();
    await signInPage.locator('.opblock-body').first().waitFor();
    for (const v of await seriousViolations(signInPage)) found.push(`/docs/ opened: ${v}`);
    await signInPage.context().close();
    expect(found).to.deep.equal([]);
  });
});
