import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { GUIDES } from '../../api/routes/guides.js';
import { repoRoot } from '../helpers.js';
import { activeKey } from '../ingest/client.js';
import { OPERATOR, startTestService, type TestService } from '../service.js';

type Operation = { parameters?: { name: string; in: string; schema?: { type?: string; format?: string } }[] };

/**
 * Hostile input anywhere a client can put it gets a 4xx naming the problem, never a 500: NUL in
 * text (PostgreSQL cannot hold it), offsets past the maximum, paths that are not valid
 * percent-encoding, bodies whose Content-Encoding is a lie.
 */
describe('Hostile input gets a 4xx naming the problem, never a 500 (PostgreSQL)', function () {
  this.timeout(60_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ database: 'postgres' });
  });
  after(() => svc.close());

  const get = async (path: string, admin = false) => {
    const res = await fetch(`${svc.url}${path}`, { headers: admin ? { authorization: `Bearer ${OPERATOR}` } : {} });
    const text = await res.text();
    return {
      status: res.status,
      text,
      body: (() => {
        try {
          return JSON.parse(text);
        } catch {
          return null;
        }
      })(),
    };
  };
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${svc.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${OPERATOR}`, ...headers },
      body: typeof body === 'string' ? body : Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };

  it('NUL in any query or path parameter of every GET operation of the API description', async () => {
    const doc = (await get('/v1/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
    let tried = 0;
    for (const [template, operations] of Object.entries(doc.paths)) {
      const op = operations.get;
      if (!op) continue;
      const admin = template.startsWith('/v1/admin');
      const params = op.parameters ?? [];
      const fill = (nulIn: string | null) =>
        template.replace(/\{(\w+)\}/g, (_m, name) =>
          name === nulIn ? 'a%00b' : params.find((p) => p.name === name)?.schema?.format === 'uuid' ? '00000000-0000-4000-8000-000000000000' : 'x',
        );
      for (const p of params) {
        if (p.schema?.type !== undefined && p.schema.type !== 'string') continue;
        const path = p.in === 'path' ? fill(p.name) : `${fill(null)}?${encodeURIComponent(p.name)}=a%00b`;
        const res = await get(path, admin);
        expect(res.status, `${path}: ${res.text}`).to.equal(400);
        // The RESO Web API answers in OData's error form: {"error":{"code","message"}}.
        const reso = template.startsWith('/v1/reso');
        if (reso) expect(res.body.error.code, path).to.equal('BadRequest');
        expect(reso ? res.body.error.message : res.body.error, path).to.match(
          p.in === 'path' ? /path contains a NUL/ : new RegExp(`query parameter "${p.name.replace(/[$^.*+?()[\]{}|\\]/g, '\\$&')}" contains a NUL`),
        );
        tried += 1;
      }
    }
    expect(tried, 'string parameters tried').to.be.greaterThan(15);
  });

  it('NUL in JSON fields: 400 naming the field (a lead message, a blocklist value, a page)', async () => {
    const lead = await post('/v1/leads', {
      listing: { office: 'OFF1', uniqueId: 'A' },
      contact: { email: 'jo@home.example', message: 'hi\u0000there' },
      consent: true,
    });
    expect(lead).to.deep.equal({ status: 400, body: { error: 'body.contact.message contains a NUL character (U+0000), which no text field can hold' } });
    const block = await post('/v1/admin/blocklist', { kind: 'email', value: 'spam\u0000@x.example' });
    expect(block.status).to.equal(400);
    expect(block.body.error).to.match(/^body\.value contains a NUL/);
    const key = await post('/v1/developer/keys', { clientName: 'CRM\u0000', email: 'a@b.example', officeIds: ['OFF1'] });
    expect(key.body.error).to.match(/^body\.clientName contains a NUL/);
  });

  it('deeply nested JSON on every JSON route: 400 naming the limit, never a 500 (a 10 KB body, depth 5,000)', async () => {
    // Each route's body limit bounds the depth it can be sent: 5,000 where the limit allows, else
    // as deep as fits.
    const routes: [string, number][] = [
      ['/v1/leads', 5000],
      ['/v1/developer/keys', 5000],
      ['/v1/validate', 5000],
      ['/v1/admin/keys', 5000],
      ['/v1/admin/blocklist', 3500],
      ['/v1/admin/listings/visibility', 1500],
    ];
    for (const [path, depth] of routes) {
      const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      for (const body of [deep, `{"a":${deep}}`]) {
        const res = await post(path, body);
        expect(res.status, `${path}: ${JSON.stringify(res.body)}`).to.equal(400);
        expect(res.body.error, path).to.match(/nests arrays and objects more than 64 levels deep/);
      }
    }
    // Depth within the limit is read as before; brackets inside strings do not count.
    const fine = await post('/v1/leads', {
      listing: { office: 'OFF1', uniqueId: 'A' },
      contact: { email: 'jo@home.example', message: '['.repeat(500) },
      consent: true,
    });
    expect(fine.body.error ?? '').to.not.match(/levels deep/);
  });

  it('offsets past the maximum on every list: 400', async () => {
    for (const path of ['/v1/listings', '/v1/agents', '/v1/offices', '/v1/projects']) {
      const res = await get(`${path}?offset=1e20`);
      expect(res.status, path).to.equal(400);
      expect(res.body.error, path).to.match(/offset/);
    }
    for (const path of ['/v1/admin/listings', '/v1/admin/feeds', '/v1/admin/audit', '/v1/admin/leads']) {
      expect((await get(`${path}?offset=10001`, true)).status, path).to.equal(400);
      expect((await get(`${path}?offset=10000`, true)).status, path).to.equal(200);
    }
  });

  it('paths that are not valid percent-encoding and bodies that do not decompress: 400', async () => {
    for (const path of ['/v1/listings/%FF/%C0', '/v1/projects/%E0%A4/x', '/v1/site/pages/%C0']) {
      const res = await get(path);
      expect(res.status, `${path}: ${res.text}`).to.equal(400);
      expect(res.body.error).to.match(/not valid percent-encoding/);
    }
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await post('/v1/validate', 'this is not compressed', { 'content-encoding': encoding });
      expect(res.status, encoding).to.equal(400);
      expect(res.body.error).to.match(/could not be decompressed/);
    }
    // A real gzip body is fine.
    const ok = await post(
      '/v1/validate',
      gzipSync(
        JSON.stringify({
          xml: '<propertyList><residential modTime="2024-01-01" status="withdrawn"><agentID>A</agentID><uniqueID>U</uniqueID></residential></propertyList>',
        }),
      ),
      { 'content-encoding': 'gzip' },
    );
    expect(ok.status).to.equal(200);
  });

  it('says what is wrong in words a newcomer understands: an empty body, a method the path does not take, a repeated parameter', async () => {
    const feedKey = await activeKey(svc.db, ['OFF1']);
    for (const [path, headers] of [
      ['/v1/validate?currency=AUD', {}],
      ['/v1/feeds?currency=AUD', { authorization: `Bearer ${feedKey}` }],
    ] as const) {
      const res = await fetch(`${svc.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/xml', ...headers } });
      expect([res.status, (await res.json()).error], path).to.deep.equal([
        400,
        'the request body is empty: send the feed as the body (raw XML, a RESO or project JSON document, or a JSON feed request)',
      ]);
    }
    for (const [method, path, allow] of [
      ['DELETE', '/v1/listings', 'GET, HEAD'],
      ['POST', '/v1/listings/OFF1/L1', 'GET, HEAD'],
      ['GET', '/v1/validate', 'POST'],
      ['PUT', '/v1/leads', 'GET, POST, HEAD'],
    ] as const) {
      const res = await fetch(`${svc.url}${path}`, { method });
      expect([res.status, res.headers.get('allow')], `${method} ${path}`).to.deep.equal([405, allow]);
      expect((await res.json()).error).to.equal(`${method} is not allowed on ${path}; it takes ${allow}`);
    }
    expect((await fetch(`${svc.url}/v1/nothing-here`, { method: 'DELETE' })).status, 'an unknown path stays a 404').to.equal(404);
    const twice = await fetch(`${svc.url}/v1/validate?currency=AUD&currency=NZD`, {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<propertyList/>',
    });
    expect([twice.status, (await twice.json()).error]).to.deep.equal([400, 'query parameter currency is given more than once']);
    const quarantine = await get('/v1/admin/quarantine?includeResolved=true&includeResolved=false', true);
    expect([quarantine.status, quarantine.body.error]).to.deep.equal([400, 'query parameter includeResolved is given more than once']);
  });

  it('answers / with a landing page that links where a newcomer starts, with the version', async () => {
    const res = await fetch(`${svc.url}/`);
    expect([res.status, res.headers.get('content-type')]).to.deep.equal([200, 'text/html; charset=utf-8']);
    const html = await res.text();
    for (const href of ['/developer', '/docs/', '/v1/openapi.json', '/console', '/guides/ingestion', '/guides/architecture', '/healthz', '/readyz'])
      expect(html, href).to.contain(`href="${href}"`);
    const { version } = JSON.parse(readFileSync(resolve(repoRoot, 'package.json'), 'utf8'));
    expect(html).to.contain(`Version ${version}.`);
    for (const href of ['/developer', '/docs/', '/console', '/guides/architecture', '/healthz'])
      expect((await fetch(`${svc.url}${href}`)).status, href).to.equal(200);
    // Every guide, each rendered when first asked for (a document that does not render fails here, not for a reader).
    for (const [name] of GUIDES) {
      const guide = await fetch(`${svc.url}/guides/${name}`);
      expect([guide.status, (await guide.text()).includes('<h1')], name).to.deep.equal([200, true]);
    }
  });
});
