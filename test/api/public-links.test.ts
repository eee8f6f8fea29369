import { connect } from 'node:net';
import { expect } from 'chai';
import { feed } from '../helpers.js';
import { activeKey, officeListing, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/**
 * A GET sent as written on a socket of its own (fetch and node:http choose the Host header
 * themselves): headers as given, no Host unless one is given; HTTP/1.0 when none is.
 */
function get(base: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const { hostname, port } = new URL(base);
  const version = 'host' in headers ? '1.1' : '1.0';
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return new Promise((resolve, reject) => {
    // Written, not ended: a client that half-closes after its request has its request aborted by
    // Node's server (as on any HTTP server whose answer is not ready by then); Connection: close
    // has the server close once it has answered.
    const socket = connect(Number(port), hostname, () => socket.write(`GET ${path} HTTP/${version}\r\n${lines.join('')}Connection: close\r\n\r\n`));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => {
      text += d;
    });
    socket.on('end', () => {
      const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
      const [statusLine, ...fields] = head.split('\r\n');
      const answerHeaders = Object.fromEntries(fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(), f.slice(f.indexOf(':') + 1).trim()]));
      const chunked = answerHeaders['transfer-encoding'] === 'chunked';
      resolve({ status: Number(statusLine.split(' ')[1]), headers: answerHeaders, body: JSON.parse(chunked ? unchunk(body) : body) });
    });
    socket.on('error', reject);
  });
}

/** A chunked body's data. */
function unchunk(body: string): string {
  let out = '';
  for (let at = 0; ; ) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.slice(at, lineEnd), 16);
    if (!size) return out;
    out += body.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

/** A service with three public listings of office OFF1, so a page of one has a next page. */
async function serviceWithListings(env: Record<string, string> = {}): Promise<TestService> {
  const svc = await startTestService({ database: 'pglite', env });
  const key = await activeKey(svc.db, ['OFF1']);
  const res = await pushFeed(svc.url, key, feed(...['A', 'B', 'C'].map((id) => officeListing('OFF1', id))));
  expect(res.status).to.equal(200);
  return svc;
}

const SEARCH = '/v1/listings?limit=1';
const RESO = '/v1/reso/Property?$select=ListingKey';

describe('links in answers and the Host header', function () {
  this.timeout(60_000);

  describe('without PUBLIC_BASE_URL', () => {
    let svc: TestService;
    before(async () => {
      svc = await serviceWithListings();
    });
    after(() => svc.close());

    it('refuses a Host header that is not a host and port with 400 naming it, on every surface in its own error form (never a 500)', async () => {
      for (const host of ['a b', 'x:99999', '[::1', '[zz::1]', 'user@x', 'x/y', 'x?y', '']) {
        const search = await get(svc.url, SEARCH, { host });
        expect(search.status, host).to.equal(400);
        expect(search.body.error, host).to.match(/^the Host header ".*" is not a host name or address with an optional port$/);
        const reso = await get(svc.url, RESO, { host, prefer: 'odata.maxpagesize=1' });
        expect(reso.status, host).to.equal(400);
        expect(reso.headers['odata-version'], host).to.equal('4.0');
        expect(reso.body.error.code, host).to.equal('BadRequest');
        expect(reso.body.error.message, host).to.match(/^the Host header/);
        const health = await get(svc.url, '/healthz', { host });
        expect(health.status, host).to.equal(400);
      }
    });

    it('builds links from a valid Host header (normalised) and the request scheme', async () => {
      const search = await get(svc.url, SEARCH, { host: 'Portal.Example:8080' });
      expect(search.status).to.equal(200);
      expect(search.headers.link).to.match(/^<http:\/\/portal\.example:8080\/v1\/listings\?limit=1&cursor=[^>]+>; rel="next"$/);
      const reso = await get(svc.url, RESO, { host: '[::1]:80', prefer: 'odata.maxpagesize=1' });
      expect(reso.status).to.equal(200);
      expect(reso.body['@odata.context']).to.equal('http://[::1]/v1/reso/$metadata#Property');
      expect(reso.body['@odata.nextLink']).to.match(/^http:\/\/\[::1\]\/v1\/reso\/Property\?\$select=ListingKey&\$skiptoken=/);
    });

    it("the next link drops the offset and the page's cursor however their names are escaped, keeps the rest as written, and escapes what a URL cannot hold", async () => {
      // Written as a client might: a filter value with characters a URL cannot hold as they are, an
      // escaped parameter name, '+' for a space, and an offset the cursor replaces.
      const first = await get(svc.url, '/v1/listings?limit=1&locality=richmond,x<y>"z&%6fffset=0&sort=%6Eewest', { host: 'portal.example' });
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.link)?.[1] ?? '';
      expect(link).to.match(/^http:\/\/portal\.example\/v1\/listings\?limit=1&locality=richmond,x%3Cy%3E%22z&sort=%6Eewest&cursor=[A-Za-z0-9_-]+$/);
      expect(() => new URL(link)).not.to.throw();
      const second = await get(svc.url, link.replace('http://portal.example', ''), { host: 'portal.example' });
      expect(second.status, JSON.stringify(second.body)).to.equal(200);
      expect(second.body.listings[0].uniqueId).to.not.equal(first.body.listings[0].uniqueId);
      // The second page's link carries one cursor, its own.
      const again = /^<([^>]+)>; rel="next"$/.exec(second.headers.link)?.[1] ?? '';
      expect(again.match(/cursor=/g)).to.have.length(1);
      expect(again).to.not.equal(link);
    });

    it('answers a request without a Host header (HTTP/1.0) with relative links', async () => {
      const search = await get(svc.url, SEARCH, {});
      expect(search.status).to.equal(200);
      expect(search.headers.link).to.match(/^<\/v1\/listings\?limit=1&cursor=[^>]+>; rel="next"$/);
      const reso = await get(svc.url, RESO, { prefer: 'odata.maxpagesize=1' });
      expect(reso.body['@odata.context']).to.equal('/v1/reso/$metadata#Property');
    });

    it('takes the scheme from X-Forwarded-Proto only when the proxy is trusted', async () => {
      const search = await get(svc.url, SEARCH, { host: 'portal.example', 'x-forwarded-proto': 'https' });
      expect(search.headers.link).to.match(/^<http:\/\/portal\.example\/v1\/listings/);
    });
  });

  describe('with PUBLIC_BASE_URL and TRUST_PROXY', () => {
    let svc: TestService;
    before(async () => {
      svc = await serviceWithListings({ PUBLIC_BASE_URL: 'https://api.example.com/listings/', TRUST_PROXY: '1', KEY_REQUEST_RATE_LIMIT: '1' });
    });
    after(() => svc.close());

    it('builds every link from PUBLIC_BASE_URL, whatever Host or X-Forwarded-Proto the request carries', async () => {
      for (const headers of [{ host: 'evil.example' }, { host: 'evil.example', 'x-forwarded-proto': 'http' }, {}] as Record<string, string>[]) {
        const search = await get(svc.url, SEARCH, headers);
        expect(search.status).to.equal(200);
        expect(search.headers.link).to.match(/^<https:\/\/api\.example\.com\/listings\/v1\/listings\?limit=1&cursor=[^>]+>; rel="next"$/);
        const reso = await get(svc.url, RESO, { ...headers, prefer: 'odata.maxpagesize=1' });
        expect(reso.body['@odata.context']).to.equal('https://api.example.com/listings/v1/reso/$metadata#Property');
        expect(reso.body['@odata.nextLink']).to.match(/^https:\/\/api\.example\.com\/listings\/v1\/reso\/Property\?\$select=ListingKey&\$skiptoken=/);
        // The link leads to the next page when the prefix is taken off again (as the proxy does).
        const next = await get(svc.url, reso.body['@odata.nextLink'].replace('https://api.example.com/listings', ''), { prefer: 'odata.maxpagesize=1' });
        expect(next.status).to.equal(200);
        expect(next.body.value).to.have.length(1);
        expect(next.body.value[0].ListingKey).to.not.equal(reso.body.value[0].ListingKey);
      }
    });

    it('counts rate limits per client address from a trusted X-Forwarded-For', async () => {
      const ask = (address: string) =>
        fetch(`${svc.url}/v1/developer/keys`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
          body: JSON.stringify({ clientName: 'CRM', alertEmail: 'a@b.example', officeIds: ['A'] }),
        });
      expect((await ask('203.0.113.7')).status).to.equal(201);
      expect((await ask('203.0.113.7')).status).to.equal(429);
      expect((await ask('203.0.113.8')).status).to.equal(201);
    });
  });
});
