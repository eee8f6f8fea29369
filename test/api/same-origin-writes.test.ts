import { expect } from 'chai';
import { OPERATOR, startTestService, type TestService } from '../service.js';

/**
 * The console session's state-changing requests (signing out, the queue board's buttons) must come
 * from the service's own page, also when the service sits behind a proxy that sends it another
 * Host than the one the browser used. Signing out (DELETE /admin/session with the session cookie)
 * stands for them all: 204 when let through, 403 when refused.
 */
describe('same-origin checks on cookie-authenticated writes', function () {
  this.timeout(60_000);
  const services: TestService[] = [];
  after(async () => {
    for (const svc of services) await svc.close();
  });

  async function start(env: Record<string, string> = {}): Promise<TestService> {
    const svc = await startTestService({ database: 'pglite', env });
    services.push(svc);
    return svc;
  }

  /** Opens a console session, then signs it out with these headers; the status, and whether the session still stands. */
  async function signOut(svc: TestService, headers: Record<string, string>, body?: string): Promise<{ status: number; open: boolean }> {
    const opened = await fetch(`${svc.url}/admin/session`, { method: 'POST', headers: { authorization: `Bearer ${OPERATOR}` } });
    expect(opened.status).to.equal(201);
    const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0];
    const before = Number((await svc.db('operator_sessions').count({ n: '*' }))[0].n);
    const res = await fetch(`${svc.url}/admin/session`, { method: 'DELETE', headers: { cookie, ...headers }, body });
    const after = Number((await svc.db('operator_sessions').count({ n: '*' }))[0].n);
    if (res.status === 403) expect((await res.json()).error).to.match(/another site|same origin/);
    return { status: res.status, open: after === before };
  }

  it("lets a browser's same-origin request through behind a proxy that rewrites Host, by Sec-Fetch-Site", async () => {
    const svc = await start();
    // The browser is on https://listings.example; the proxy sends the request on with Host 127.0.0.1:port.
    const ok = await signOut(svc, { origin: 'https://listings.example', 'sec-fetch-site': 'same-origin' });
    expect(ok).to.deep.equal({ status: 204, open: false });
    for (const site of ['cross-site', 'same-site']) {
      const refused = await signOut(svc, { origin: `http://${new URL(svc.url).host}`, 'sec-fetch-site': site });
      expect(refused, site).to.deep.equal({ status: 403, open: true });
    }
  });

  it('takes the Origin of PUBLIC_BASE_URL from a browser that sends no Sec-Fetch-Site, and no other', async () => {
    const svc = await start({ PUBLIC_BASE_URL: 'https://listings.example' });
    expect(await signOut(svc, { origin: 'https://listings.example' })).to.deep.equal({ status: 204, open: false });
    expect(await signOut(svc, { origin: `http://${new URL(svc.url).host}` }), 'the Host it was sent to').to.deep.equal({ status: 204, open: false });
    for (const origin of ['https://evil.example', 'http://listings.example', 'https://listings.example:8443', 'null']) {
      expect(await signOut(svc, { origin }), origin).to.deep.equal({ status: 403, open: true });
    }
  });

  it('takes X-Forwarded-Host as the host only from a trusted proxy', async () => {
    const trusted = await start({ TRUST_PROXY: 'loopback' });
    const forwarded = { origin: 'https://listings.example', 'x-forwarded-host': 'listings.example' };
    expect(await signOut(trusted, forwarded)).to.deep.equal({ status: 204, open: false });
    const untrusted = await start();
    expect(await signOut(untrusted, forwarded)).to.deep.equal({ status: 403, open: true });
  });

  it('refuses a request showing neither Origin nor Sec-Fetch-Site unless it is JSON', async () => {
    const svc = await start();
    expect(await signOut(svc, { 'content-type': 'text/plain' }, '{}')).to.deep.equal({ status: 403, open: true });
    expect(await signOut(svc, { 'content-type': 'application/json' }, '{}')).to.deep.equal({ status: 204, open: false });
  });
});
