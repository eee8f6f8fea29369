import { expect } from 'chai';
import { buildOpenApi } from '../../api/openapi.js';
import { createAjv } from '../../lib/ajv.js';
import { feed } from '../helpers.js';
import { activeKey, admin, officeListing, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> }>>;
  components: { schemas: Record<string, unknown> };
};
const doc = buildOpenApi() as Doc;

/** Checks a live answer against what the API description says that operation answers with that status. */
function expectDocumented(method: string, path: string, status: number, body: unknown): void {
  const response = doc.paths[path]?.[method.toLowerCase()]?.responses[String(status)];
  expect(response, `${method} ${path} documents ${status}`).to.exist;
  const schema = response!.content?.['application/json']?.schema;
  expect(schema, `${method} ${path} ${status} has a JSON schema`).to.exist;
  // The answer's schema with the document's components beside it, as a validator resolves them.
  const resolvable = JSON.parse(JSON.stringify({ ...schema, $defs: doc.components.schemas }).replaceAll('"#/components/schemas/', '"#/$defs/'));
  const validate = createAjv().compile(resolvable);
  expect(validate(body), `${method} ${path} ${status}: ${JSON.stringify(validate.errors)}`).to.equal(true);
  // Every field the answer carries is one the description names (a generated client types it).
  const named = namedProperties(schema!);
  if (named && body && typeof body === 'object' && !Array.isArray(body)) {
    expect(
      Object.keys(body).filter((k) => !named.has(k)),
      `${method} ${path}: undocumented fields`,
    ).to.deep.equal([]);
  }
}

function namedProperties(schema: Record<string, unknown>): Set<string> | null {
  const ref = schema.$ref as string | undefined;
  const target = ref ? (doc.components.schemas[ref.split('/').pop()!] as Record<string, unknown>) : schema;
  const props = target.properties as Record<string, unknown> | undefined;
  return props ? new Set(Object.keys(props)) : null;
}

describe('operator and lead answers as the API description types them (PGlite, Redis)', function () {
  this.timeout(60_000);
  let svc: TestService;
  const call = async (method: string, path: string, template: string, body?: unknown) => {
    const res = await admin(svc.url, method, path, body);
    const json = res.status === 204 ? null : await res.json();
    expectDocumented(method, template, res.status, json);
    return { status: res.status, body: json };
  };

  before(async () => {
    svc = await startTestService({ database: 'pglite', redis: true });
    const key = await activeKey(svc.db, ['OFF1']);
    const pushed = await pushFeed(svc.url, key, feed(officeListing('OFF1', 'A'), officeListing('OFF1', 'B', { status: 'sold' })));
    expect(pushed.status).to.equal(200);
  });
  after(() => svc.close());

  it('every JSON answer of every operation names its fields (no bare object a generator types as empty)', () => {
    const bare: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops))
        for (const [code, response] of Object.entries(op.responses)) {
          const schema = response.content?.['application/json']?.schema;
          if (schema && !schema.$ref && !schema.properties && !schema.anyOf && !schema.oneOf && !schema.allOf) bare.push(`${method} ${path} ${code}`);
        }
    expect(bare).to.deep.equal([]);
  });

  it('answers the operator routes with what the description says, field for field', async () => {
    expect((await call('POST', '/admin/session', '/admin/session')).status).to.equal(201);
    const stats = await call('GET', '/v1/admin/stats', '/v1/admin/stats');
    expect(stats.body.queues.ingest).to.have.property('waiting');
    const listings = await call('GET', '/v1/admin/listings', '/v1/admin/listings');
    expect(listings.body.total).to.equal(2);
    expect(
      (await call('POST', '/v1/admin/listings/visibility', '/v1/admin/listings/visibility', { officeId: 'OFF1', uniqueId: 'A', hidden: true })).status,
    ).to.equal(200);
    expect((await call('GET', '/v1/admin/audit', '/v1/admin/audit')).body.entries[0]).to.include({ action: 'listing.hide' });
    expect((await call('PUT', '/v1/admin/site/settings', '/v1/admin/site/settings', { key: 'identity', value: { name: 'Homes' } })).status).to.equal(200);
    const nav = [{ kind: 'builtin', ref: 'listings', label: null, visible: true, newTab: false }];
    expect((await call('PUT', '/v1/admin/site/nav', '/v1/admin/site/nav', { links: nav })).status).to.equal(200);
    const page = await call('POST', '/v1/admin/site/pages', '/v1/admin/site/pages', { slug: 'about', title: { en: 'About' }, body: { en: 'Us.' } });
    expect((await call('GET', '/v1/admin/site/pages', '/v1/admin/site/pages')).body.pages).to.have.length(1);
    expect((await call('DELETE', `/v1/admin/site/pages/id/${page.body.id}`, '/v1/admin/site/pages/id/{id}')).body).to.deep.equal({ deleted: page.body.id });
    // A failed feed, as ingestion leaves one after its last attempt, is run again.
    const [pushedFeed] = await svc.db('feed_events').update({ status: 'failed' }).returning('id');
    expect((await call('POST', `/v1/admin/feeds/${pushedFeed.id}/retry`, '/v1/admin/feeds/{feedId}/retry')).body).to.include({ status: 'queued' });
    const office = await call('GET', '/v1/admin/offices/OFF1', '/v1/admin/offices/{office}');
    expect(office.body.listingsByStatus).to.deep.equal({ active: 1, sold: 1 });
    expect((await call('PUT', '/v1/admin/offices/OFF1', '/v1/admin/offices/{office}', { leadEmail: 'leads@off1.example' })).body).to.deep.equal({
      office: 'OFF1',
      leadEmail: 'leads@off1.example',
      leadDelivery: 'both',
    });
    // Named operator tokens (what npm run operator:token asks of a running service).
    const made = await call('POST', '/v1/admin/operator-tokens', '/v1/admin/operator-tokens', { name: 'alice' });
    expect([made.status, made.body.name, made.body.token]).to.satisfy(
      ([status, name, token]: [number, string, string]) => status === 201 && name === 'alice' && token.startsWith('lop_'),
    );
    expect((await call('POST', '/v1/admin/operator-tokens', '/v1/admin/operator-tokens', { name: 'alice' })).status, 'one active token per name').to.equal(409);
    expect((await call('POST', '/v1/admin/operator-tokens', '/v1/admin/operator-tokens', { name: 'not a name' })).status).to.equal(400);
    expect((await call('GET', '/v1/admin/operator-tokens', '/v1/admin/operator-tokens')).body.map((t: { name: string }) => t.name)).to.deep.equal(['alice']);
    expect((await admin(svc.url, 'GET', '/v1/admin/stats', undefined, made.body.token)).status).to.equal(200);
    const revoked = await call('POST', '/v1/admin/operator-tokens/alice/revoke', '/v1/admin/operator-tokens/{name}/revoke');
    expect(revoked.body).to.deep.equal({ revoked: 'alice' });
    expect((await call('POST', '/v1/admin/operator-tokens/alice/revoke', '/v1/admin/operator-tokens/{name}/revoke')).status).to.equal(404);
    expect((await call('POST', '/v1/admin/operator-tokens/not%20a%20name/revoke', '/v1/admin/operator-tokens/{name}/revoke')).status).to.equal(400);
    expect((await admin(svc.url, 'GET', '/v1/admin/stats', undefined, made.body.token)).status).to.equal(401);
    expect((await call('GET', '/v1/admin/audit', '/v1/admin/audit')).body.entries.slice(0, 2).map((e: { action: string }) => e.action)).to.deep.equal([
      'operator_token.revoke',
      'operator_token.create',
    ]);
  });

  it('answers the lead and blocklist routes with what the description says', async () => {
    const lead = await fetch(`${svc.url}/v1/leads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ listing: { office: 'OFF1', uniqueId: 'B' }, contact: { email: 'buyer@example.com', message: 'Still available?' }, consent: true }),
    });
    expectDocumented('POST', '/v1/leads', lead.status, await lead.json());
    const leads = await call('GET', '/v1/admin/leads', '/v1/admin/leads');
    expect(leads.body.leads).to.have.length(1);
    // A failed lead, as the delivery leaves one after its last attempt, is retried.
    await svc.db('leads').update({ status: 'failed' });
    expect((await call('POST', `/v1/admin/leads/${leads.body.leads[0].id}/retry`, '/v1/admin/leads/{id}/retry')).body).to.deep.equal({
      id: leads.body.leads[0].id,
      status: 'pending',
      recipient: 'leads@off1.example',
    });
    const blocked = await call('POST', '/v1/admin/blocklist', '/v1/admin/blocklist', { kind: 'domain', value: 'spam.example', reason: 'spam' });
    expect((await call('GET', '/v1/admin/blocklist', '/v1/admin/blocklist')).body.entries).to.have.length(1);
    expect((await call('DELETE', '/v1/admin/blocklist', '/v1/admin/blocklist', { id: blocked.body.id })).body.removed.id).to.equal(blocked.body.id);
  });
});
