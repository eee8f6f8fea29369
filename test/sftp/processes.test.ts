import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createDb } from '../../db/knex.js';
import { EMBEDDED_START_MS, eventually, feed } from '../helpers.js';
import { officeListing } from '../ingest/client.js';
import { freePort, type RoleProcess, scratchDatabase, spawnRole } from '../processes.js';
import { redisUrl } from '../service.js';
import { type SftpServer, startSftpServer } from '../sftp-server.js';

/** Waits until check() is true (the suite's one polling helper). */
const until = (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000) => eventually(what, check, timeoutMs);

describe('SFTP drops in the real process roles', function () {
  this.timeout(3 * EMBEDDED_START_MS);
  let sshd: SftpServer;
  const procs: RoleProcess[] = [];
  before(async () => {
    sshd = await startSftpServer();
  });
  afterEach(async () => {
    for (const p of procs.splice(0)) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });
  after(() => sshd?.stop());

  const sftpEnv = () => ({
    SFTP_URL: `sftp://${sshd.username}@127.0.0.1:${sshd.port}${sshd.root}`,
    SFTP_PRIVATE_KEY_PATH: sshd.clientKeyPath,
    SFTP_HOST_FINGERPRINT: sshd.fingerprint,
    SFTP_POLL_MS: '200',
    LOG_LEVEL: 'info',
  });
  const drop = (office: string, name: string, xml: string) => {
    mkdirSync(join(sshd.root, office, 'inbox'), { recursive: true });
    writeFileSync(join(sshd.root, office, 'inbox', name), xml);
  };
  const processed = (office: string) => {
    try {
      return readdirSync(join(sshd.root, office, 'processed'));
    } catch {
      return [];
    }
  };

  it('npm start (embedded) with SFTP_URL: a dropped REAXML export shows up in search and the file in processed/', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sftp-allinone-'));
    const port = await freePort();
    const proc = spawnRole('main.js', { ...sftpEnv(), PORT: String(port), DATA_DIR: dataDir });
    procs.push(proc);
    await proc.waitFor('sftp watcher started');
    await proc.waitFor('"listening"');
    drop('AGENCY1', 'export.xml', feed(officeListing('AGENCY1', 'E1'), officeListing('AGENCY1', 'E2')));
    await until('listings in search', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/v1/listings?office=AGENCY1`).catch(() => null);
      return res?.ok ? (await res.json()).listings.length === 2 : false; // (total is cached for 30 s)
    });
    await until('the file in processed/', () => processed('AGENCY1').some((n) => n.endsWith('-export.xml')));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('production: the sftp role queues on BullMQ, a worker role ingests into PostgreSQL', async () => {
    const scratch = await scratchDatabase();
    try {
      const env = { DATABASE_URL: scratch.url, REDIS_URL: redisUrl, ...sftpEnv() };
      const worker = spawnRole('workers/main.js', env);
      procs.push(worker);
      await worker.waitFor('worker started');
      const sftp = spawnRole('sftp-watcher/main.js', env);
      procs.push(sftp);
      await sftp.waitFor('sftp watcher started');
      drop('AGENCY2', 'weekly.full.xml', feed(officeListing('AGENCY2', 'P1')));
      await until('the file in processed/', () => processed('AGENCY2').some((n) => n.endsWith('-weekly.full.xml')));
      const db = createDb({ databaseUrl: scratch.url, dataDir: '' });
      try {
        const event = await db('feed_events').where({ source: 'sftp' }).first();
        expect(event).to.include({ mode: 'full', status: 'done' });
        expect(await db('listings').pluck('listing_key')).to.deep.equal(['AGENCY2/P1']);
      } finally {
        await db.destroy();
      }
      const refused = spawnRole('sftp-watcher/main.js', { ...sftpEnv() });
      expect(await refused.exited).to.equal(1);
      expect(refused.output()).to.contain('the sftp role needs SFTP_URL, DATABASE_URL and REDIS_URL');
    } finally {
      for (const p of procs.splice(0)) {
        p.child.kill('SIGTERM');
        await p.exited;
      }
      await scratch.drop();
    }
  });
});
