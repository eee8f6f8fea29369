import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { feed } from '../helpers.js';
import { startTestService, type TestService } from '../service.js';
import { admin, officeListing, pushFeed } from './client.js';

describe('Feed keys: request, whoami, approval and revocation (PostgreSQL + Redis)', function () {
  this.timeout(20_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ database: 'postgres', redis: true, env: { KEY_REQUEST_RATE_LIMIT: '50' } });
  });
  after(() => svc.close());

  const requestKey = (body: unknown) =>
    fetch(`${svc.url}/v1/developer/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const whoami = (key: string) => fetch(`${svc.url}/v1/feeds/whoami`, { headers: { authorization: `Bearer ${key}` } });

  it('walks a key from request to approval to revocation', async () => {
    const res = await requestKey({ clientName: 'Acme CRM', alertEmail: 'ops@acme.example', officeIds: ['OFF1', 'OFF2'] });
    expect(res.status).to.equal(201);
    const created = await res.json();
    expect(validatorFor('KeyCreated')(created)).to.equal(true);
    expect(created).to.include({ status: 'suspended' });
    expect(created.officeIds).to.deep.equal(['OFF1', 'OFF2']);
    expect(created.key).to.match(/^lfk_[A-Za-z0-9_-]{43}$/);

    // Stored only as a hash.
    const stored = await svc.db('feed_keys').where({ id: created.id }).first();
    expect(JSON.stringify(stored)).not.to.contain(created.key);

    // whoami answers for a suspended key so integrators can poll for approval; pushing is refused.
    expect(await (await whoami(created.key)).json()).to.deep.equal({
      keyId: created.id,
      clientName: 'Acme CRM',
      officeIds: ['OFF1', 'OFF2'],
      status: 'suspended',
    });
    const refused = await pushFeed(svc.url, created.key, feed(officeListing('OFF1', 'A')));
    expect(refused.status).to.equal(401);
    expect((await refused.json()).error).to.match(/awaiting operator approval/);

    // Operators: 401 without or with a wrong credential.
    expect((await fetch(`${svc.url}/v1/admin/keys`)).status).to.equal(401);
    expect((await admin(svc.url, 'GET', '/v1/admin/keys', undefined, 'wrong-token-wrong-token')).status).to.equal(401);
    expect((await admin(svc.url, 'POST', `/v1/admin/keys/${created.id}/approve`, undefined, 'nope')).status).to.equal(401);

    const listed = await (await admin(svc.url, 'GET', '/v1/admin/keys')).json();
    expect(listed.keys.map((k: { id: string }) => k.id)).to.include(created.id);
    expect(JSON.stringify(listed)).not.to.contain(created.key);
    for (const k of listed.keys) expect(validatorFor('FeedKey')(k), JSON.stringify(k)).to.equal(true);

    const approved = await admin(svc.url, 'POST', `/v1/admin/keys/${created.id}/approve`);
    expect(approved.status).to.equal(200);
    expect(await approved.json()).to.include({ status: 'active' });
    expect((await (await whoami(created.key)).json()).status).to.equal('active');
    expect((await pushFeed(svc.url, created.key, feed(officeListing('OFF1', 'A')))).status).to.equal(200);

    expect((await admin(svc.url, 'POST', `/v1/admin/keys/${created.id}/revoke`)).status).to.equal(200);
    expect((await whoami(created.key)).status).to.equal(401);
    expect((await pushFeed(svc.url, created.key, feed(officeListing('OFF1', 'A')))).status).to.equal(401);
    const again = await admin(svc.url, 'POST', `/v1/admin/keys/${created.id}/approve`);
    expect(again.status).to.equal(409);
    expect((await again.json()).error).to.match(/revoked/);
  });

  it('401 for missing or unknown keys, 404 for unknown key ids, 400 naming bad request fields', async () => {
    expect((await fetch(`${svc.url}/v1/feeds/whoami`)).status).to.equal(401);
    expect((await whoami('lfk_unknown')).status).to.equal(401);
    const noKey = await fetch(`${svc.url}/v1/feeds`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<propertyList/>' });
    expect(noKey.status).to.equal(401);
    expect(Object.keys(await noKey.json())).to.deep.equal(['error']);
    expect((await admin(svc.url, 'POST', '/v1/admin/keys/00000000-0000-4000-8000-000000000000/approve')).status).to.equal(404);
    expect((await admin(svc.url, 'POST', '/v1/admin/keys/not-a-uuid/revoke')).status).to.equal(404);

    const cases: [unknown, RegExp][] = [
      [{ clientName: 'X', alertEmail: 'not-an-email', officeIds: ['A'] }, /alertEmail/],
      [{ clientName: 'X', alertEmail: 'a@b.example', officeIds: [] }, /officeIds/],
      [{ clientName: 'X', alertEmail: 'a@b.example', officeIds: ['A'], admin: true }, /unknown property "admin"/],
      [{ alertEmail: 'a@b.example', officeIds: ['A'] }, /clientName/],
    ];
    for (const [body, pattern] of cases) {
      const res = await requestKey(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect((await res.json()).error).to.match(pattern);
    }
  });

  it('rate-limits key requests per client address in Redis, shared by web processes (429 with an error body)', async () => {
    const limited = await startTestService({ database: 'postgres', redis: true, env: { KEY_REQUEST_RATE_LIMIT: '3' } });
    // A second web process on the same Redis counts against the same limit.
    const other = await startTestService({
      database: 'postgres',
      redis: true,
      db: limited.db,
      rateLimitPrefix: limited.rateLimitPrefix,
      env: { KEY_REQUEST_RATE_LIMIT: '3' },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        const res = await fetch(`${(i % 2 ? other : limited).url}/v1/developer/keys`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ clientName: `C${i}`, alertEmail: 'a@b.example', officeIds: ['A'] }),
        });
        statuses.push(res.status);
        if (res.status === 429) expect((await res.json()).error).to.match(/limit is 3 per hour/);
      }
      expect(statuses).to.deep.equal([201, 201, 201, 429]);
    } finally {
      await other.close();
      await limited.close();
    }
  });
});
