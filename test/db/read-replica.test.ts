import { expect } from 'chai';
import { loadConfig } from '../../lib/config.js';
import { eventually, feed } from '../helpers.js';
import { activeKey, admin, officeListing, pushFeed } from '../ingest/client.js';
import { type ReplicaPair, startReplicaPair } from '../pg-replica-pair.js';
import { startTestService, type TestService } from '../service.js';

describe('Public reads from a read replica (DATABASE_READ_URL): a real streaming replica, its lag and its loss', function () {
  this.timeout(180_000);
  let pair: ReplicaPair;
  let svc: TestService;
  let key: string;

  const status = async (path: string, headers: Record<string, string> = {}) => (await fetch(`${svc.url}${path}`, { headers })).status;
  const ready = async () => {
    const res = await fetch(`${svc.url}/readyz`);
    return { status: res.status, body: (await res.json()) as any };
  };
  const metric = async (name: string) => {
    const text = await (await admin(svc.url, 'GET', '/metrics')).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line ? Number(line.split(' ')[1]) : null;
  };
  const push = async (uniqueId: string) =>
    expect((await pushFeed(svc.url, key, feed(officeListing('REP1', uniqueId)), { mode: 'incremental' })).status).to.equal(200);
  const ownerSees = async (uniqueId: string) => status(`/v1/feeds/listings/REP1/${uniqueId}`, { authorization: `Bearer ${key}` });

  before(async () => {
    pair = await startReplicaPair();
    svc = await startTestService({ database: 'postgres', env: { DATABASE_URL: pair.primaryUrl, DATABASE_READ_URL: pair.replicaUrl } });
    key = await activeKey(svc.db, ['REP1']);
  });
  after(async () => {
    await svc?.close();
    await pair?.close();
  });

  it('refuses a replica URL without a primary: the embedded database has no replica', () => {
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://127.0.0.1:5433/x' })).to.throw(/DATABASE_READ_URL is set but DATABASE_URL is not/);
  });

  it('serves public reads from the replica: what it has not replayed yet is not public yet, and readiness shows the lag', async () => {
    await push('A');
    await eventually('listing A replicated and public', async () => (await status('/v1/listings/REP1/A')) === 200);
    const first = await ready();
    expect(first.status).to.equal(200);
    expect(first.body.checks.readReplica).to.include({ state: 'ok' });
    expect(await metric('read_replica_up')).to.equal(1);

    // The replica stops replaying: the primary has B (its owner reads it), the public reads do not.
    await pair.onReplica('SELECT pg_wal_replay_pause()');
    await push('B');
    expect(await ownerSees('B'), 'owners read the primary').to.equal(200);
    expect(await status('/v1/listings/REP1/B'), 'public reads read the replica').to.equal(404);
    const lagging = await eventually('the lag shown', async () => {
      const r = await ready();
      return r.body.checks.readReplica.lagBytes > 0 && r;
    });
    expect(lagging.status, 'a lagging replica does not make the service unready').to.equal(200);
    expect(lagging.body.checks.readReplica.lagSeconds).to.be.a('number');
    expect(await metric('read_replica_lag_bytes')).to.be.greaterThan(0);

    await pair.onReplica('SELECT pg_wal_replay_resume()');
    await eventually('listing B replayed and public', async () => (await status('/v1/listings/REP1/B')) === 200);
    await eventually('the lag gone', async () => (await ready()).body.checks.readReplica.lagBytes === 0);
  });

  it('reads from the primary while the replica is lost, and from the replica again once it is back', async () => {
    await pair.stopReplica();
    await push('C');
    const down = await eventually('the replica seen lost', async () => {
      const r = await ready();
      return r.body.checks.readReplica.state === 'unavailable' && r;
    });
    expect(down.status, 'still ready: the primary takes the public reads').to.equal(200);
    expect(down.body.checks.readReplica).to.include({ lagSeconds: null, lagBytes: null });
    expect(await metric('read_replica_up')).to.equal(0);
    expect(await status('/v1/listings/REP1/C'), 'read from the primary').to.equal(200);
    expect((await (await fetch(`${svc.url}/v1/listings?office=REP1`)).json()).listings.map((l: any) => l.uniqueId).sort()).to.deep.equal(['A', 'B', 'C']);

    await pair.startReplica();
    await eventually('the replica back', async () => (await ready()).body.checks.readReplica.state === 'ok', 60_000);
    expect(await metric('read_replica_up')).to.equal(1);
    await push('D');
    await eventually('listing D replicated and public', async () => (await status('/v1/listings/REP1/D')) === 200);
  });
});
