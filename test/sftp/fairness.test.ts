import { mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { sftpSettings } from '../../sftp-watcher/sftp-session.js';
import { LIST_MAX, SftpWatcher } from '../../sftp-watcher/watcher.js';
import { createBullQueue } from '../../workers/bullmq-queue.js';
import { INGEST_RETRY, type JobQueue } from '../../workers/job-queue.js';
import { feed, silentLogger } from '../helpers.js';
import { officeListing, waitForFeed } from '../ingest/client.js';
import { redisUrl, startTestService, type TestService } from '../service.js';
import { type SftpServer, startSftpServer } from '../sftp-server.js';
import { startTcpProxy, type TcpProxy } from '../tcp-proxy.js';

describe('SFTP drops: claimed fairly across offices (real OpenSSH, PostgreSQL, BullMQ)', function () {
  this.timeout(120_000);
  let sshd: SftpServer;
  let svc: TestService;
  let proxy: TcpProxy;
  /** A real BullMQ queue no worker consumes: feeds queued on it stay unfinished. */
  let held: JobQueue;

  before(async () => {
    sshd = await startSftpServer();
    svc = await startTestService({ database: 'postgres', redis: true });
    proxy = await startTcpProxy(sshd.port);
    // Under the service's own prefix, so its cleanup removes the keys.
    held = createBullQueue('held-ingest', redisUrl, INGEST_RETRY, silentLogger, svc.queuePrefix);
  });
  afterEach(() => {
    for (const office of readdirSync(sshd.root, { encoding: 'buffer' }))
      rmSync(Buffer.concat([Buffer.from(`${sshd.root}/`), office]), { recursive: true, force: true });
  });
  after(async () => {
    await held?.close();
    await proxy?.close();
    await svc?.close();
    await sshd?.stop();
  });

  const watcher = (options: { officeShare: number; claimsPerPoll?: number; queue?: JobQueue }) =>
    new SftpWatcher({
      db: svc.db,
      ingestQueue: options.queue ?? svc.runtime.ingestQueue,
      logger: silentLogger,
      settings: sftpSettings(
        {
          sftpUrl: `sftp://${sshd.username}@127.0.0.1:${proxy.port}${sshd.root}`,
          sftpPrivateKeyPath: sshd.clientKeyPath,
          sftpHostFingerprint: sshd.fingerprint,
        },
        10_000,
      ),
      pollMs: 1000,
      maxBytes: 10 * 1024 * 1024,
      officeShare: options.officeShare,
      claimsPerPoll: options.claimsPerPoll ?? 100,
    });
  /** Drops `count` distinct one-listing files named `<prefix>-NN.xml` in the office's inbox. */
  const drop = (office: string, prefix: string, count: number) => {
    mkdirSync(join(sshd.root, office, 'inbox'), { recursive: true });
    for (let i = 0; i < count; i += 1) {
      writeFileSync(join(sshd.root, office, 'inbox', `${prefix}-${String(i).padStart(2, '0')}.xml`), feed(officeListing(office, `${prefix}${i}`)));
    }
  };
  const inbox = (office: string) => readdirSync(join(sshd.root, office, 'inbox'));
  const feedsOf = (office: string) =>
    svc.db('sftp_files as f').join('feed_events as e', 'e.id', 'f.feed_id').where('f.office', office).select('e.id', 'e.status', 'e.started_at', 'f.file_name');

  it("claims one file of each office in turn: 60 files of one office hold up neither another office's single file nor its ingestion", async () => {
    const w = watcher({ officeShare: 5 });
    drop('BIG', 'big', 60);
    drop('SMALL', 'small', 1);
    expect((await w.pollOnce()).claimed, 'nothing is complete on first sight').to.deep.equal([]);
    const poll = await w.pollOnce();
    expect(poll.claimed.indexOf('small-00.xml'), "the single file is in the poll's first round").to.be.within(0, 1);
    expect(poll.claimed.filter((n) => n.startsWith('big-'))).to.have.length(5);
    expect(poll.waiting).to.equal(55);
    expect(inbox('BIG')).to.have.length(55);

    const [small] = await feedsOf('SMALL');
    await waitForFeed(svc.db, small.id, 20_000);
    const started = (await svc.db('feed_events').where({ id: small.id }).first()).started_at;
    const bigBefore = (await feedsOf('BIG')).filter((f) => f.started_at !== null && f.started_at < started);
    expect(bigBefore.length, "the big office's feeds ingested ahead of the single one").to.be.at.most(5);
    for (const f of await feedsOf('BIG')) await waitForFeed(svc.db, f.id, 20_000);
  });

  it('holds an office to its share of files not yet ingested, while other offices are still served; it takes more once they are', async () => {
    const w = watcher({ officeShare: 5, queue: held });
    drop('HELD', 'held', 20);
    await w.pollOnce();
    expect((await w.pollOnce()).claimed).to.have.length(5);
    drop('OTHER', 'other', 1);
    for (const poll of [await w.pollOnce(), await w.pollOnce()]) {
      expect(
        poll.claimed.filter((n) => n.startsWith('held-')),
        'its 5 feeds are not ingested: no more of its files',
      ).to.deep.equal([]);
    }
    expect((await feedsOf('OTHER')).map((f) => f.file_name)).to.deep.equal(['other-00.xml']);
    expect(inbox('HELD')).to.have.length(15);

    // Its feeds are ingested (by the service's own queue and worker): its share is free again.
    for (const f of await feedsOf('HELD')) {
      await svc.runtime.ingestQueue.add(f.id);
      await waitForFeed(svc.db, f.id, 20_000);
    }
    expect((await w.pollOnce()).claimed.filter((n) => n.startsWith('held-'))).to.have.length(5);
  });

  it("spends a poll's budget one office after another, and the next poll goes on with the offices this one did not reach", async () => {
    const w = watcher({ officeShare: 5, claimsPerPoll: 2 });
    for (const office of ['E1', 'E2', 'E3']) drop(office, office.toLowerCase(), 2);
    await w.pollOnce();
    const polls = [await w.pollOnce(), await w.pollOnce(), await w.pollOnce()].map((p) => p.claimed);
    expect(polls).to.deep.equal([
      ['e1-00.xml', 'e2-00.xml'],
      ['e3-00.xml', 'e1-01.xml'],
      ['e2-01.xml', 'e3-01.xml'],
    ]);
  });

  it('reads at most LIST_MAX entries of an inbox however many it holds, and still serves every office', async () => {
    const w = watcher({ officeShare: 5, queue: held });
    // Empty files are never complete, so every poll sees the same inbox.
    const crowded = (from: number, to: number) => {
      mkdirSync(join(sshd.root, 'CROWDED', 'inbox'), { recursive: true });
      for (let i = from; i < to; i += 1) writeFileSync(join(sshd.root, 'CROWDED', 'inbox', `empty-${String(i).padStart(5, '0')}.xml`), '');
    };
    crowded(0, LIST_MAX);
    drop('QUIET', 'quiet', 1);
    const polled = async () => {
      const before = proxy.received();
      const summary = await w.pollOnce();
      return { summary, bytes: proxy.received() - before };
    };
    const first = await polled();
    crowded(LIST_MAX, 4 * LIST_MAX);
    const second = await polled();
    expect(second.summary.claimed).to.deep.equal(['quiet-00.xml']);
    expect(second.bytes, `a poll of an inbox of ${4 * LIST_MAX} entries against one of ${LIST_MAX}`).to.be.below(first.bytes * 1.25);
  });

  it('passes over folders and files whose names are not UTF-8 (no request can name them): they hold up neither other offices nor their own', async () => {
    const w = watcher({ officeShare: 2, queue: held });
    const latin1 = (path: string, name: string) => Buffer.concat([Buffer.from(`${path}/`), Buffer.from(name, 'latin1')]);
    mkdirSync(latin1(sshd.root, 'Büro'));
    drop('NEIGHBOUR', 'neighbour', 1);
    drop('SELF', 'self', 1);
    // Older than its one good file, and more of them than its share.
    for (const name of ['ä-1.xml', 'ä-2.xml', 'ä-3.xml']) {
      const path = latin1(join(sshd.root, 'SELF', 'inbox'), name);
      writeFileSync(path, feed(officeListing('SELF', name)));
      utimesSync(path, new Date('2020-01-01'), new Date('2020-01-01'));
    }
    await w.pollOnce();
    const poll = await w.pollOnce();
    expect(poll.claimed.sort()).to.deep.equal(['neighbour-00.xml', 'self-00.xml']);
    expect(poll.skipped).to.deep.equal([]);
  });
});
