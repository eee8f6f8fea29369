import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { createOperatorToken, revokeOperatorToken } from '../../db/operators.js';
import { launchBrowser } from '../browser.js';
import { feed, repoRoot } from '../helpers.js';
import { OPERATOR, startTestService, type TestService } from '../service.js';
import { activeKey, officeListing, pushFeed } from './client.js';

const SCREENSHOTS = resolve(repoRoot, 'test-artifacts/console');

describe('Browser: Bull Board at /admin/queues behind the operator credential', function () {
  this.timeout(60_000);
  let svc: TestService;
  let browser: Browser;
  before(async () => {
    svc = await startTestService({ database: 'postgres', redis: true });
    browser = await launchBrowser();
    mkdirSync(SCREENSHOTS, { recursive: true });
    const key = await activeKey(svc.db, ['OFF1']);
    expect((await pushFeed(svc.url, key, feed(officeListing('OFF1', 'A')))).status).to.equal(200);
  });
  after(async () => {
    await browser?.close();
    await svc?.close();
  });

  it('reports queue depths in the dashboard when REDIS_URL is set', async () => {
    const read = async () => (await fetch(`${svc.url}/v1/admin/stats`, { headers: { authorization: `Bearer ${OPERATOR}` } })).json();
    // The push is answered once the feed is done; the worker marks its job completed a moment later.
    let stats = await read();
    for (let i = 0; i < 100 && (stats.queues.ingest.active !== 0 || stats.queues.ingest.completed < 1); i += 1) {
      await new Promise((r) => setTimeout(r, 50));
      stats = await read();
    }
    expect(stats.queues.ingest).to.include({ waiting: 0, active: 0 });
    expect(stats.queues.ingest.completed).to.be.at.least(1);
    expect(stats.queues.leadDelivery).to.include({ waiting: 0 });
  });

  /** Opens a console session with the token; returns the cookie pair to send back. */
  const signIn = async (token = OPERATOR) => {
    const res = await fetch(`${svc.url}/admin/session`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(res.status).to.equal(201);
    const setCookie = res.headers.get('set-cookie') ?? '';
    return { setCookie, cookie: setCookie.split(';')[0] };
  };
  const board = (cookie: string) => fetch(`${svc.url}/admin/queues/api/queues`, { headers: { cookie } });

  it('sends a browser without a session to the console to sign in, and takes no HTTP Basic password', async () => {
    const none = await fetch(`${svc.url}/admin/queues`);
    expect(none.status).to.equal(401);
    expect(none.headers.get('www-authenticate'), 'no Basic prompt').to.equal(null);
    expect((await none.json()).error).to.contain('sign in at /console');
    const page = await fetch(`${svc.url}/admin/queues`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }, redirect: 'manual' });
    expect([page.status, page.headers.get('location')]).to.deep.equal([303, '/console?next=queues']);
    const basic = await fetch(`${svc.url}/admin/queues`, { headers: { authorization: `Basic ${Buffer.from(`operator:${OPERATOR}`).toString('base64')}` } });
    expect(basic.status, 'a browser replays Basic credentials to any site: not taken').to.equal(401);
    const bearer = await fetch(`${svc.url}/admin/queues`, { headers: { authorization: `Bearer ${OPERATOR}` } });
    expect(bearer.status).to.equal(200);
  });

  it("opens the board with the console's SameSite=Strict session cookie, ends it on sign-out and when the token is revoked", async () => {
    const refused = await fetch(`${svc.url}/admin/session`, { method: 'POST', headers: { authorization: 'Bearer wrong-token-wrong-token' } });
    expect(refused.status).to.equal(401);
    const { setCookie, cookie } = await signIn();
    expect(setCookie).to.match(/^operator_session=los_/);
    expect(setCookie).to.contain('HttpOnly').and.contain('SameSite=Strict').and.contain('Path=/admin');
    expect((await board(cookie)).status).to.equal(200);
    expect((await board('operator_session=los_forged')).status).to.equal(401);
    const stored = await svc.db('operator_sessions').select('id_hash');
    expect(JSON.stringify(stored), 'only a hash of the secret is stored').to.not.contain(cookie.split('=')[1]);

    const out = await fetch(`${svc.url}/admin/session`, { method: 'DELETE', headers: { cookie, 'sec-fetch-site': 'same-origin' } });
    expect(out.status).to.equal(204);
    expect(out.headers.get('set-cookie')).to.match(/^operator_session=;/);
    expect((await board(cookie)).status, 'signed out').to.equal(401);

    const named = await createOperatorToken(svc.db, 'board-user');
    const session = await signIn(named.token);
    expect((await board(session.cookie)).status).to.equal(200);
    await revokeOperatorToken(svc.db, 'board-user');
    expect((await board(session.cookie)).status, 'the token behind the session was revoked').to.equal(401);
    const audit = await svc.db('audit_log').where({ action: 'operator.sign_in' }).orderBy('id').pluck('actor');
    expect(audit.slice(-2)).to.deep.equal(['bootstrap', 'token:board-user']);
  });

  it('refuses state-changing board requests a page on another site could send, and does not announce Express', async () => {
    const { cookie } = await signIn();
    const before = await svc.runtime.ingestQueue.counts();
    const add = (headers: Record<string, string>) =>
      fetch(`${svc.url}/admin/queues/api/queues/ingest/add`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'text/plain', ...headers },
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
        headers: { cookie, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' },
      });
      expect(res.status, action).to.be.oneOf([200, 204]);
    }
    for (const path of ['/admin/queues', '/admin/queues/api/queues']) {
      const res = await fetch(`${svc.url}${path}`, { headers: { cookie } });
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('x-powered-by'), path).to.equal(null);
    }
  });

  it('takes an operator from the board to the console to sign in and back, then shows the ingest queue with its completed job', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${svc.url}/admin/queues`);
    await page.getByText('Sign in to open the queue board.').waitFor();
    expect(new URL(page.url()).pathname).to.equal('/console');
    await page.screenshot({ path: resolve(SCREENSHOTS, 'board-sign-in.png'), fullPage: true });
    await page.getByLabel('Operator token').fill(OPERATOR);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${svc.url}/admin/queues**`);
    await page.getByText('ingest', { exact: true }).first().waitFor();
    await page.getByText('ingest', { exact: true }).first().click();
    await page
      .getByRole('link', { name: /completed/i })
      .first()
      .click();
    const { id } = await svc.db('feed_events').first('id');
    await page.getByText(`ingest-${id}`).waitFor();
    await page.screenshot({ path: resolve(SCREENSHOTS, 'board-completed.png'), fullPage: true });
    const cookies = await context.cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite, c.path])).to.deep.equal([['operator_session', true, 'Strict', '/admin']]);
    await context.close();
  });
});
