import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { type SftpSettings, sftpSettings } from '../../sftp-watcher/sftp-session.js';
import { SftpWatcher } from '../../sftp-watcher/watcher.js';
import type { JobQueue } from '../../workers/job-queue.js';
import { eventually, feed, silentLogger } from '../helpers.js';
import { admin, officeListing, waitForFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';
import { type SftpServer, startSftpServer } from '../sftp-server.js';
import { startTcpProxy, type TcpProxy } from '../tcp-proxy.js';

describe('SFTP drops: the watcher against a real OpenSSH server (PostgreSQL)', function () {
  this.timeout(60_000);
  let sshd: SftpServer;
  let svc: TestService;
  let proxy: TcpProxy;
  const OFFICE = 'OFF1';
  const folder = (...parts: string[]) => join(sshd.root, OFFICE, ...parts);
  const names = (sub: string) => readdirSync(folder(sub)).sort();

  before(async () => {
    sshd = await startSftpServer();
    svc = await startTestService({ database: 'postgres' });
    proxy = await startTcpProxy(sshd.port);
    mkdirSync(folder('inbox'), { recursive: true });
  });
  after(async () => {
    await proxy?.close();
    await svc?.close();
    await sshd?.stop();
  });

  const settings = (overrides: Partial<SftpSettings> = {}): SftpSettings => ({
    ...sftpSettings(
      { sftpUrl: `sftp://${sshd.username}@127.0.0.1:${proxy.port}${sshd.root}`, sftpPrivateKeyPath: sshd.clientKeyPath, sftpHostFingerprint: sshd.fingerprint },
      5_000,
    ),
    ...overrides,
  });
  const watcher = (queue: JobQueue = svc.runtime.ingestQueue, overrides: Partial<SftpSettings> = {}) =>
    new SftpWatcher({
      db: svc.db,
      ingestQueue: queue,
      logger: silentLogger,
      settings: settings(overrides),
      pollMs: 1000,
      maxBytes: 10 * 1024 * 1024,
      officeShare: 20,
      claimsPerPoll: 100,
    });
  const sftpEvents = () => svc.db('feed_events').where({ source: 'sftp' }).orderBy('created_at');
  /** Polls until the file has left processing/ (its feed finished and the watcher moved it). */
  const pollUntilMoved = async (w: SftpWatcher) => {
    for (let i = 0; i < 50; i += 1) {
      const events = await sftpEvents();
      for (const e of events) await waitForFeed(svc.db, e.id, 5_000);
      await w.pollOnce();
      if (names('processing').length === 0) return;
    }
    throw new Error('the file never left processing/');
  };

  it("claims a complete file after two polls, ingests it for the folder's office, and moves it to processed/", async () => {
    const w = watcher();
    writeFileSync(folder('inbox', 'listings.xml'), feed(officeListing(OFFICE, 'S1'), officeListing(OFFICE, 'S2')));
    const first = await w.pollOnce();
    expect(first.claimed, 'not claimed on first sight').to.deep.equal([]);
    const second = await w.pollOnce();
    expect(second.claimed).to.deep.equal(['listings.xml']);
    expect(names('inbox')).to.deep.equal([]);
    await pollUntilMoved(w);
    expect(names('processed')).to.have.length(1);
    expect(names('processed')[0]).to.match(/^\d{8}T\d{6}Z-[0-9a-f]{8}-listings\.xml$/);
    const [event] = await sftpEvents();
    expect(event).to.include({ source: 'sftp', format: 'reaxml', mode: 'incremental', status: 'done' });
    expect(event.office_scope).to.deep.equal([OFFICE]);
    expect(event.result.summary.inserted).to.equal(2);
    const search = await (await fetch(`${svc.url}/v1/listings?office=${OFFICE}`)).json();
    expect(search.listings.map((l: { uniqueId: string }) => l.uniqueId).sort()).to.deep.equal(['S1', 'S2']);
  });

  it('leaves a file that is still being written alone until it stops changing, and takes a renamed upload at once', async () => {
    const w = watcher();
    const path = folder('inbox', 'growing.xml');
    writeFileSync(path, '<propertyList>');
    await w.pollOnce();
    appendFileSync(path, officeListing(OFFICE, 'G1'));
    expect((await w.pollOnce()).claimed, 'changed since the last poll').to.deep.equal([]);
    appendFileSync(path, '</propertyList>');
    expect((await w.pollOnce()).claimed).to.deep.equal([]);
    expect((await w.pollOnce()).claimed).to.deep.equal(['growing.xml']);

    writeFileSync(folder('inbox', 'upload.xml.filepart'), feed(officeListing(OFFICE, 'U1')));
    expect((await w.pollOnce()).claimed, 'a temporary name is never taken').to.deep.equal([]);
    renameSync(folder('inbox', 'upload.xml.filepart'), folder('inbox', 'upload.xml'));
    expect((await w.pollOnce()).claimed, 'renamed from its upload name: complete').to.deep.equal(['upload.xml']);
    await pollUntilMoved(w);
    expect((await svc.db('listings').whereIn('unique_id', ['G1', 'U1']).pluck('unique_id')).sort()).to.deep.equal(['G1', 'U1']);
  });

  it('moves a malformed file to failed/ with an .error.json, and mails the office alert address set by the operator', async () => {
    const put = await admin(svc.url, 'PUT', `/v1/admin/offices/${OFFICE}/drop-settings`, { currency: 'AUD', alertEmail: 'feeds@agency.example' });
    expect(put.status).to.equal(200);
    expect(await (await admin(svc.url, 'GET', `/v1/admin/offices/${OFFICE}/drop-settings`)).json()).to.deep.equal({
      office: OFFICE,
      currency: 'AUD',
      country: null,
      locale: null,
      alertEmail: 'feeds@agency.example',
    });
    expect((await admin(svc.url, 'PUT', `/v1/admin/offices/${OFFICE}/drop-settings`, { currency: 'ZZZ' })).status).to.equal(400);

    const w = watcher();
    writeFileSync(folder('inbox', 'broken.xml'), `<propertyList>${officeListing(OFFICE, 'B1')}<residential>`);
    writeFileSync(folder('inbox', 'notes.txt'), 'not a feed');
    await w.pollOnce();
    await w.pollOnce();
    await pollUntilMoved(w);
    const failed = names('failed');
    const broken = failed.find((n) => n.endsWith('-broken.xml'))!;
    expect(failed).to.include(`${broken}.error.json`);
    const report = JSON.parse(readFileSync(folder('failed', `${broken}.error.json`), 'utf8'));
    expect(report).to.include({ file: 'broken.xml', feedStatus: 'done' });
    expect(report.issues.map((i: { code: string }) => i.code)).to.include('feed_not_well_formed');
    const txt = failed.find((n) => n.endsWith('-notes.txt'))!;
    expect(JSON.parse(readFileSync(folder('failed', `${txt}.error.json`), 'utf8')).error).to.contain('.xml');

    const event = await svc.db('feed_events').where({ id: report.feedId }).first();
    expect(event.alert_email).to.equal('feeds@agency.example');
    expect(event.context).to.include({ currency: 'AUD' });
    const outbox = join(svc.dataDir, 'outbox');
    let mails: string[] = [];
    for (let i = 0; i < 100 && mails.length === 0; i += 1) {
      mails = existsSync(outbox)
        ? readdirSync(outbox)
            .map((f) => readFileSync(join(outbox, f), 'utf8'))
            .filter((m) => m.includes(report.feedId))
        : [];
      if (!mails.length) await new Promise((r) => setTimeout(r, 50));
    }
    expect(mails).to.have.length(1);
    expect(mails[0]).to.match(/^To: feeds@agency\.example$/m);
  });

  it('never ingests the same content twice', async () => {
    const w = watcher();
    const before = (await sftpEvents()).length;
    writeFileSync(folder('inbox', 'again.xml'), feed(officeListing(OFFICE, 'S1'), officeListing(OFFICE, 'S2'))); // the first test's content
    await w.pollOnce();
    const summary = await w.pollOnce();
    expect(summary.duplicates).to.deep.equal(['again.xml']);
    expect((await sftpEvents()).length).to.equal(before);
    const note = names('processed').find((n) => n.endsWith('-again.xml.duplicate.json'))!;
    expect(JSON.parse(readFileSync(folder('processed', note), 'utf8')).duplicateOf.file).to.equal('listings.xml');
  });

  it('survives a connection dropped mid-poll: the poll fails, the next one finishes the file, nothing twice', async () => {
    const w = watcher();
    const cutAfterQueueing: JobQueue = {
      add: async (id: string) => {
        await svc.runtime.ingestQueue.add(id);
        await waitForFeed(svc.db, id, 5_000);
        proxy.cut(); // the connection dies after the feed is ingested, as the poll goes to move the file
      },
      close: async () => undefined,
    } as JobQueue;
    const cutting = watcher(cutAfterQueueing);
    writeFileSync(folder('inbox', 'cut.xml'), feed(officeListing(OFFICE, 'C1')));
    await cutting.pollOnce();
    const error = await cutting.pollOnce().then(
      () => null,
      (e: Error) => e,
    );
    proxy.resume(); // before asserting, so a failure here cannot leave the server away for the next tests
    expect(error, 'the poll noticed the dropped connection').to.be.instanceOf(Error);
    expect(
      names('processing').filter((n) => n.endsWith('-cut.xml')),
      'claimed, ingested, not yet moved',
    ).to.have.length(1);
    proxy.cut();
    const refused = await w.pollOnce().then(
      () => null,
      (e: Error) => e,
    );
    proxy.resume();
    expect(refused?.message, 'no connection while cut').to.be.a('string');
    await pollUntilMoved(w);
    expect(names('processed').filter((n) => n.endsWith('-cut.xml'))).to.have.length(1);
    expect((await sftpEvents()).filter((e) => e.result?.upserts?.some((u: { listingKey: string }) => u.listingKey === 'OFF1/C1'))).to.have.length(1);
  });

  it('claims a 244-character file name under a claim name the server takes, and skips and reports an office it cannot poll: neither stops the others', async () => {
    const w = watcher();
    const longName = `${'long-name-'.repeat(24)}.xml`;
    expect(longName).to.have.length(244);
    writeFileSync(folder('inbox', longName), feed(officeListing(OFFICE, 'LONG')));
    // An office folder the watcher cannot use: its processing/ is a file. It sorts first.
    mkdirSync(join(sshd.root, 'AAA-BROKEN', 'inbox'), { recursive: true });
    writeFileSync(join(sshd.root, 'AAA-BROKEN', 'processing'), 'not a folder');
    writeFileSync(join(sshd.root, 'AAA-BROKEN', 'inbox', 'stuck.xml'), feed(officeListing('AAA-BROKEN', 'STUCK')));
    mkdirSync(join(sshd.root, 'ZZ3', 'inbox'), { recursive: true });
    writeFileSync(join(sshd.root, 'ZZ3', 'inbox', 'other.xml'), feed(officeListing('ZZ3', 'OTHER')));

    await w.pollOnce();
    const summary = await w.pollOnce();
    expect(summary.claimed.sort()).to.deep.equal([longName, 'other.xml']);
    expect(summary.skipped.map((s) => s.office)).to.deep.equal(['AAA-BROKEN']);
    expect(summary.skipped[0].error).to.be.a('string').and.not.equal('');
    await pollUntilMoved(w);
    const [claim] = names('processed').filter((n) => n.includes('long-name-'));
    expect(Buffer.byteLength(claim)).to.be.at.most(255 - '.duplicate.json'.length);
    expect(claim).to.match(/^\d{8}T\d{6}Z-[0-9a-f]{8}-long-name-.*~.*long-name-\.xml$/);
    const recorded = await svc.db('sftp_files').where({ claim_name: claim }).first();
    expect(recorded.file_name, 'the original name is kept').to.equal(longName);
    const listed = async (office: string) =>
      (await (await fetch(`${svc.url}/v1/listings?office=${office}`)).json()).listings.map((l: { uniqueId: string }) => l.uniqueId);
    expect(await listed(OFFICE)).to.include('LONG');
    await eventually('the ZZ3 feed listed', async () => (await listed('ZZ3')).length > 0);
    expect(await listed('ZZ3')).to.deep.equal(['OTHER']);
    // Left as it was, and still skipped on the next poll.
    expect(readdirSync(join(sshd.root, 'AAA-BROKEN', 'inbox'))).to.deep.equal(['stuck.xml']);
    expect((await w.pollOnce()).skipped.map((s) => s.office)).to.deep.equal(['AAA-BROKEN']);
  });

  it('lets two watchers race for one file: exactly one claims it', async () => {
    const [a, b] = [watcher(), watcher()];
    const before = (await sftpEvents()).length;
    writeFileSync(folder('inbox', 'race.xml'), feed(officeListing(OFFICE, 'R1')));
    await Promise.all([a.pollOnce(), b.pollOnce()]);
    const [ra, rb] = await Promise.all([a.pollOnce(), b.pollOnce()]);
    expect([...ra.claimed, ...rb.claimed]).to.deep.equal(['race.xml']);
    expect((await sftpEvents()).length).to.equal(before + 1);
    await pollUntilMoved(a);
    expect(names('processed').filter((n) => n.endsWith('-race.xml'))).to.have.length(1);
  });

  it('refuses a server whose host key does not match the configured fingerprint', async () => {
    const w = watcher(undefined, { hostFingerprint: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    const error = await w.pollOnce().then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).to.match(/verification failed|Host denied/i);
  });
});
