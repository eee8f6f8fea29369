/**
 * bench/sftp-fairness: one office's big drop against another office's single file, end to end as
 * production runs it: the sftp role and one worker role on PostgreSQL and Redis, a real OpenSSH
 * server on loopback. Office A drops BENCH_FILES (default 1,000) small REAXML files and office B
 * one, all at once, while the roles run. Prints when B's file was claimed and when its feed was
 * done (seconds after the drop), and the same for the last of A's files. Target: B's file claimed
 * in the first poll that finds it complete (at most two poll intervals plus one poll's work after
 * the drop), and ingested behind at most one office share of A's files, not behind all of them.
 *
 *   npm run bench:sftp-fairness
 *   BENCH_FILES=200 BENCH_POLL_MS=2000 npm run bench:sftp-fairness
 * Uses BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch database is
 * created beside it) and BENCH_REDIS_URL (default redis://127.0.0.1:6379/9: a database of its own,
 * so the roles' queues meet no other run's).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDb, type Db } from '../db/knex.js';
import { startSftpServer } from '../test/sftp-server.js';
import { scratchDatabase, startRole, stopRole } from './roles.js';

const FILES = Number(process.env.BENCH_FILES ?? 1000);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 2000);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/9';

const listing = (office: string, id: string) =>
  `<residential modTime="2024-03-01-10:00:00" status="current"><agentID>${office}</agentID><uniqueID>${id}</uniqueID>` +
  `<headline>Home ${id}</headline><description>Light-filled rooms.</description><price>650000</price>` +
  '<address><streetNumber>1</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address>' +
  '</residential>';
const feedOf = (office: string, id: string) => `<?xml version="1.0" encoding="utf-8"?><propertyList>${listing(office, id)}</propertyList>`;

/** Seconds since the drop when B's and A's last file were claimed and done (null: not yet). */
interface Times {
  bClaimed: number | null;
  bDone: number | null;
  aLastClaimed: number | null;
  aLastDone: number | null;
}

async function times(db: Db, droppedAt: number): Promise<Times & { aDone: number }> {
  const rows = (await db('sftp_files as f')
    .join('feed_events as e', 'e.id', 'f.feed_id')
    .select(
      'f.office',
      db.raw('extract(epoch from f.created_at) * 1000 AS claimed'),
      db.raw('extract(epoch from e.finished_at) * 1000 AS done'),
      'e.status',
    )) as {
    office: string;
    claimed: string;
    done: string | null;
    status: string;
  }[];
  const since = (ms: string | null) => (ms === null ? null : (Number(ms) - droppedAt) / 1000);
  const b = rows.find((r) => r.office === 'B');
  const a = rows.filter((r) => r.office === 'A');
  const aDone = a.filter((r) => r.status === 'done');
  const last = (values: (number | null)[]) => (values.length ? Math.max(...values.map((v) => v ?? 0)) : null);
  return {
    bClaimed: b ? since(b.claimed) : null,
    bDone: b?.status === 'done' ? since(b.done) : null,
    aLastClaimed: a.length === FILES ? last(a.map((r) => since(r.claimed))) : null,
    aLastDone: aDone.length === FILES ? last(aDone.map((r) => since(r.done))) : null,
    aDone: aDone.length,
  };
}

async function main() {
  console.log(`office A drops ${FILES} files and office B one, at once; SFTP_POLL_MS=${POLL_MS}; the sftp role and 1 worker role on PostgreSQL and Redis`);
  const sshd = await startSftpServer();
  const scratch = await scratchDatabase(DATABASE_URL, `bench_sftp_${process.pid}`);
  const roles: ChildProcess[] = [];
  let db: Db | null = null;
  try {
    const env = {
      DATABASE_URL: scratch.url,
      REDIS_URL,
      SFTP_URL: `sftp://${sshd.username}@127.0.0.1:${sshd.port}${sshd.root}`,
      SFTP_PRIVATE_KEY_PATH: sshd.clientKeyPath,
      SFTP_HOST_FINGERPRINT: sshd.fingerprint,
      SFTP_POLL_MS: String(POLL_MS),
      LOG_LEVEL: 'info',
    };
    for (const office of ['A', 'B']) mkdirSync(join(sshd.root, office, 'inbox'), { recursive: true });
    roles.push(await startRole('workers/main.js', env, '"worker started"'));
    roles.push(await startRole('sftp-watcher/main.js', env, '"sftp watcher started"'));
    db = createDb({ databaseUrl: scratch.url, dataDir: '' });
    // Written beside the inbox and renamed in, so every file appears at once, complete.
    const staging = join(sshd.root, 'staging');
    mkdirSync(staging);
    for (let i = 0; i < FILES; i += 1) writeFileSync(join(staging, `a-${String(i).padStart(5, '0')}.xml`), feedOf('A', `A${i}`));
    writeFileSync(join(staging, 'b.xml'), feedOf('B', 'B1'));
    const droppedAt = Date.now();
    for (let i = 0; i < FILES; i += 1) {
      const name = `a-${String(i).padStart(5, '0')}.xml`;
      renameSync(join(staging, name), join(sshd.root, 'A', 'inbox', name));
    }
    renameSync(join(staging, 'b.xml'), join(sshd.root, 'B', 'inbox', 'b.xml'));
    let t: Awaited<ReturnType<typeof times>>;
    for (;;) {
      t = await times(db, droppedAt);
      if (t.bDone !== null && t.aLastDone !== null) break;
      if (Date.now() - droppedAt > 60 * 60_000) throw new Error(`not done within an hour: B done ${t.bDone !== null}, A ${t.aDone}/${FILES} done`);
      await new Promise((r) => setTimeout(r, 100));
    }
    console.log(`B's file: claimed ${t.bClaimed!.toFixed(1)} s after the drop, ingested ${t.bDone!.toFixed(1)} s after`);
    console.log(`A's files: the last claimed ${t.aLastClaimed!.toFixed(1)} s after the drop, the last ingested ${t.aLastDone!.toFixed(1)} s after`);
    const aDoneBeforeB = await db('sftp_files as f')
      .join('feed_events as e', 'e.id', 'f.feed_id')
      .where('f.office', 'A')
      .where('e.finished_at', '<', db('sftp_files as g').join('feed_events as h', 'h.id', 'g.feed_id').where('g.office', 'B').select('h.finished_at'))
      .count({ n: '*' });
    console.log(`A's feeds ingested before B's: ${Number(aDoneBeforeB[0].n)} of ${FILES}`);
  } finally {
    await Promise.all(roles.map(stopRole));
    await db?.destroy();
    await scratch.drop();
    await sshd.stop();
  }
}

await main();
