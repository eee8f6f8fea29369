import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { ADDRESS, feed, fixture, listingXml } from '../helpers.js';
import { startTestService, type TestService } from '../service.js';

describe('HTTP: POST /v1/validate and the service basics', () => {
  let server: TestService;
  const MAX = 64 * 1024;

  before(async () => {
    server = await startTestService({ database: 'pglite', env: { FEED_MAX_BYTES: String(MAX) } });
  });
  after(async () => {
    await server.close();
  });

  const post = (path: string, body: string, contentType: string) =>
    fetch(`${server.url}${path}`, { method: 'POST', body, headers: { 'content-type': contentType } });
  const postJson = (body: unknown) => post('/v1/validate', JSON.stringify(body), 'application/json');
  const expectError = async (res: Response, status: number, pattern: RegExp) => {
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).to.equal(status);
    expect(Object.keys(body)).to.deep.equal(['error']);
    expect(body.error).to.match(pattern);
  };

  it('GET /healthz answers ok and GET /readyz reports the database', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).to.equal(200);
    expect(await health.json()).to.deep.equal({ status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.equal({ status: 'ready', checks: { database: 'ok' } });
  });

  it('dry-runs a JSON feed request and returns a schema-valid result with previews', async () => {
    const res = await postJson({
      xml: fixture('Residential/REA-Residential-Current.xml'),
      mode: 'full',
      format: 'reaxml',
      context: { currency: 'aud', defaultCountry: 'AU', sourceLocale: 'en-AU' },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    const body = await res.json();
    expect(validatorFor('ValidationResult')(body), JSON.stringify(validatorFor('ValidationResult').errors)).to.equal(true);
    expect(body.ok).to.equal(true);
    expect(body.counts).to.deep.equal({ parsed: 1, valid: 1, invalid: 0 });
    expect(body.listings[0].price).to.deep.equal({ amount: 500000, currency: 'AUD', display: true, text: 'Between $400,000 and $600,000' });
  });

  it('dry-runs raw XML with context in the query (application/xml and text/xml)', async () => {
    for (const type of ['application/xml', 'text/xml; charset=utf-8']) {
      const res = await post('/v1/validate?currency=NZD&officeId=OVERRIDE&locale=en-NZ', fixture('Residential/REA-Residential-Current.xml'), type);
      expect(res.status).to.equal(200);
      const body = await res.json();
      expect(body.listings[0].office).to.equal('OVERRIDE');
      expect(body.listings[0].price.currency).to.equal('NZD');
      expect(body.listings[0].headline).to.have.key('en-NZ');
    }
  });

  it("takes the context in the query by the JSON body's names too, and refuses a field given by both its names", async () => {
    const xml = fixture('Residential/REA-Residential-Current.xml');
    const res = await post('/v1/validate?currency=NZD&sourceOfficeId=OVERRIDE&sourceLocale=en-NZ&defaultCountry=NZ', xml, 'application/xml');
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).to.equal(200);
    expect(body.listings[0].office).to.equal('OVERRIDE');
    expect(body.listings[0].headline).to.have.key('en-NZ');
    for (const [older, name] of [
      ['country=NZ', 'defaultCountry=NZ'],
      ['locale=en-NZ', 'sourceLocale=en-NZ'],
      ['officeId=A', 'sourceOfficeId=B'],
    ]) {
      const both = await post(`/v1/validate?currency=NZD&${older}&${name}`, xml, 'application/xml');
      expect(both.status).to.equal(400);
      const olderName = older.split('=')[0];
      const newName = name.split('=')[0];
      expect((await both.json()).error).to.equal(`query.${olderName} is the older name of query.${newName}: give one of the two`);
    }
    const badCountry = await post('/v1/validate?defaultCountry=QQ', xml, 'application/xml');
    expect(badCountry.status).to.equal(400);
    expect((await badCountry.json()).error).to.equal('query.defaultCountry "QQ" is not an ISO-3166 alpha-2 country code');
  });

  it('reports invalid listings with their issues and still answers 200', async () => {
    const res = await post('/v1/validate?currency=AUD', fixture('Rental/REA-Rental-WithBadStatus.xml'), 'application/xml');
    const body = await res.json();
    expect(res.status).to.equal(200);
    expect(body.ok).to.equal(false);
    expect(body.issues[0]).to.include({ level: 'error', code: 'unknown_status' });
  });

  it("streams the previews in feed order, a later duplicate that wins in the first one's place, and leaves no spool file behind", async () => {
    const { readdirSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const spools = () => readdirSync(tmpdir()).filter((name) => name.startsWith('dry-run-'));
    const before = spools();
    const one = (id: string, day: string, headline: string) =>
      `<residential modTime="2024-03-${day}-10:00:00" status="current"><agentID>OFF1</agentID><uniqueID>${id}</uniqueID>${ADDRESS}<headline>${headline}</headline></residential>`;
    const body = feed(one('A', '01', 'first A'), one('B', '01', 'only B'), one('A', '02', 'newer A'), one('C', '01', 'C "quoted" &amp; 2 &lt; 3'));
    const res = await post('/v1/validate', body, 'application/xml');
    expect(res.status).to.equal(200);
    const result = await res.json();
    expect(result.counts).to.deep.equal({ parsed: 4, valid: 4, invalid: 0 });
    expect(result.listings.map((l: { uniqueId: string; headline: Record<string, string> }) => [l.uniqueId, l.headline['en-AU']])).to.deep.equal([
      ['A', 'newer A'],
      ['B', 'only B'],
      ['C', 'C "quoted" & 2 < 3'],
    ]);
    expect(result.issues.map((i: { code: string }) => i.code)).to.include('duplicate_listing');
    expect(validatorFor('ValidationResult')(result), JSON.stringify(validatorFor('ValidationResult').errors)).to.equal(true);
    expect(spools()).to.deep.equal(before);
  });

  it('keeps an echoed, well-formed X-Request-Id', async () => {
    const res = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).to.equal('abc-123');
  });

  describe('400s name the problem', () => {
    it('unknown top-level and context properties', async () => {
      await expectError(await postJson({ xml: '<a/>', extra: 1 }), 400, /unknown property "extra"/);
      await expectError(await postJson({ xml: '<a/>', context: { currency: 'AUD', office: 'x' } }), 400, /body\.context has an unknown property "office"/);
    });
    it('missing xml, wrong types and enums', async () => {
      await expectError(await postJson({ mode: 'full' }), 400, /missing the required property "xml"/);
      await expectError(await postJson({ xml: 5 }), 400, /body\.xml must be string/);
      await expectError(await postJson({ xml: '<a/>', mode: 'sometimes' }), 400, /body\.mode must be one of "full", "incremental"/);
      await expectError(await postJson({ xml: '<a/>', format: 'csv' }), 400, /body\.format must be one of "reaxml"/);
      await expectError(await postJson(['<a/>']), 400, /body must be object/);
    });
    it('currency must be exactly 3 letters and a real ISO-4217 code', async () => {
      await expectError(await postJson({ xml: '<a/>', context: { currency: 'AU' } }), 400, /context\.currency must match pattern/);
      await expectError(await postJson({ xml: '<a/>', context: { currency: 'AUDD' } }), 400, /context\.currency must match pattern/);
      await expectError(await postJson({ xml: '<a/>', context: { currency: 'XYZ' } }), 400, /context\.currency "XYZ" is not an ISO-4217 currency code/);
      await expectError(await post('/v1/validate?currency=QQQ', '<a/>', 'application/xml'), 400, /query\.currency "QQQ" is not an ISO-4217/);
    });
    it('country must be a real ISO-3166 alpha-2 code', async () => {
      await expectError(await postJson({ xml: '<a/>', context: { defaultCountry: 'XX' } }), 400, /context\.defaultCountry "XX" is not an ISO-3166/);
      await expectError(await post('/v1/validate?country=Australia', '<a/>', 'application/xml'), 400, /query\.country must match pattern/);
    });
    it('unknown or repeated query parameters on the raw form, any on the JSON form', async () => {
      await expectError(await post('/v1/validate?curency=AUD', '<a/>', 'application/xml'), 400, /unknown property "curency"/);
      await expectError(
        await post('/v1/validate?currency=AUD&currency=NZD', '<a/>', 'application/xml'),
        400,
        /^query parameter currency is given more than once$/,
      );
      await expectError(
        await fetch(`${server.url}/v1/validate?currency=AUD`, { method: 'POST', body: '{"xml":"<a/>"}', headers: { 'content-type': 'application/json' } }),
        400,
        /apply only to raw bodies/,
      );
    });
    it('malformed JSON', async () => {
      await expectError(await post('/v1/validate', '{"xml": ', 'application/json'), 400, /not valid JSON/);
    });
    it('feeds that are not well-formed, have a wrong root or no listings name line and column', async () => {
      await expectError(
        await post('/v1/validate', '<propertyList>\n  <residential>\n</propertyList>', 'application/xml'),
        400,
        /not well-formed.*\(line 3, column \d+\)/,
      );
      await expectError(await post('/v1/validate', fixture('REA-BadContent.xml'), 'application/xml'), 400, /root element must be propertyList.*line 3/);
      await expectError(
        await post('/v1/validate', '<propertyList date="2024-01-01"></propertyList>', 'application/xml'),
        400,
        /no listings.*\(line 1, column \d+\)/,
      );
      await expectError(await post('/v1/validate', '', 'application/xml'), 400, /^the request body is empty: send the feed as the body/);
      await expectError(await postJson({ xml: '<propertyList><residential></propertyList>' }), 400, /not well-formed/);
    });
  });

  it('413 for a body over FEED_MAX_BYTES, in both forms', async () => {
    const big = feed(listingXml(`${ADDRESS}<description>${'x'.repeat(MAX)}</description>`));
    await expectError(await post('/v1/validate', big, 'application/xml'), 413, /larger than the limit of 65536 bytes/);
    await expectError(await postJson({ xml: big }), 413, /larger than the limit/);
  });

  it('reads gzip, deflate and br bodies in both forms, and refuses one that unpacks past FEED_MAX_BYTES (413) or names another encoding (415)', async () => {
    const { gzipSync, deflateSync, brotliCompressSync } = await import('node:zlib');
    const xml = feed(listingXml(ADDRESS));
    const send = (body: Buffer, type: string, encoding: string) =>
      fetch(`${server.url}/v1/validate`, { method: 'POST', body: new Uint8Array(body), headers: { 'content-type': type, 'content-encoding': encoding } });
    for (const [encoding, pack] of [
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ] as const) {
      for (const [type, text] of [
        ['application/xml', xml],
        ['application/json', JSON.stringify({ xml })],
      ]) {
        const res = await send(pack(Buffer.from(text)), type, encoding);
        const body = await res.json();
        expect(res.status, `${encoding} ${type}: ${JSON.stringify(body)}`).to.equal(200);
        expect(body.counts).to.deep.equal({ parsed: 1, valid: 1, invalid: 0 });
      }
      // A few hundred bytes that unpack to far more than the limit.
      const bomb = pack(Buffer.from(feed(listingXml(`${ADDRESS}<description>${'x'.repeat(MAX * 16)}</description>`))));
      expect(bomb.length).to.be.below(MAX);
      await expectError(await send(bomb, 'application/xml', encoding), 413, /larger than the limit of 65536 bytes/);
      await expectError(
        await send(pack(Buffer.from(JSON.stringify({ xml: 'x'.repeat(MAX * 16) }))), 'application/json', encoding),
        413,
        /larger than the limit/,
      );
    }
    await expectError(await send(Buffer.from(xml), 'application/xml', 'compress'), 415, /Content-Encoding compress is not supported/);
  });

  it('413 for a raw body streamed without Content-Length', async () => {
    const big = feed(listingXml(`${ADDRESS}<description>${'x'.repeat(MAX)}</description>`));
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const res = await fetch(`${server.url}/v1/validate`, {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/xml' },
      duplex: 'half',
    } as RequestInit);
    await expectError(res, 413, /larger than the limit/);
  });

  it('415 for other content types', async () => {
    await expectError(
      await post('/v1/validate', 'xml=1', 'application/x-www-form-urlencoded'),
      415,
      /Content-Type must be application\/json, application\/xml or text\/xml/,
    );
  });

  it('404 with an error body for unknown routes', async () => {
    await expectError(await fetch(`${server.url}/v1/nothing-here`), 404, /no route for GET \/v1\/nothing-here/);
  });

  it('serves the OpenAPI 3.1 document built from the validation schemas', async () => {
    const res = await fetch(`${server.url}/v1/openapi.json`);
    const doc = await res.json();
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.info.version).to.equal('0.1.0');
    expect(doc.paths['/v1/validate'].post.requestBody.content['application/json'].schema.anyOf).to.deep.include.members([
      { $ref: '#/components/schemas/FeedRequest' },
      { $ref: '#/components/schemas/ProjectFeed' },
    ]);
    expect(doc.components.schemas.FeedRequest.properties.context).to.deep.equal({ $ref: '#/components/schemas/FeedContext' });
    expect(doc.components.schemas.FeedContext.additionalProperties).to.equal(false);
    expect(JSON.stringify(doc)).not.to.include('"$id"');
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    expect(
      refs.filter((name) => !doc.components.schemas[name]),
      'unresolved $refs',
    ).to.deep.equal([]);
    expect(Object.keys(doc.paths)).to.include.members([
      '/v1/developer/keys',
      '/v1/feeds',
      '/v1/feeds/whoami',
      '/v1/feeds/{feedId}',
      '/v1/admin/keys',
      '/v1/admin/keys/{id}/approve',
      '/v1/admin/keys/{id}/revoke',
      '/v1/admin/quarantine',
      '/v1/admin/quarantine/{id}/resolve',
      '/v1/listings',
      '/v1/listings/{office}/{uniqueId}',
      '/v1/agents',
      '/v1/offices',
      '/v1/countries',
      '/v1/fx',
      '/v1/admin/stats',
      '/v1/admin/listings',
      '/v1/admin/listings/visibility',
      '/v1/admin/feeds',
      '/v1/admin/audit',
      '/v1/admin/site/settings',
      '/v1/admin/site/nav',
      '/v1/admin/site/pages',
      '/v1/admin/site/pages/{slug}',
      '/v1/admin/site/pages/id/{id}',
      '/v1/site',
      '/v1/site/pages/{slug}',
      '/v1/leads',
      '/v1/admin/leads',
      '/v1/admin/leads/{id}/retry',
      '/v1/admin/blocklist',
      '/v1/admin/offices/{office}',
    ]);
  });
});
