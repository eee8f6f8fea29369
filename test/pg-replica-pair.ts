import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../lib/free-port.js';

const run = promisify(execFile);

/** The machine's PostgreSQL server programs (Debian: /usr/lib/postgresql/<version>/bin). */
function postgresBin(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('no PostgreSQL server programs under /usr/lib/postgresql');
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

/** A PostgreSQL primary and its streaming replica, two clusters of their own on loopback ports, for one test. */
export interface ReplicaPair {
  primaryUrl: string;
  replicaUrl: string;
  /** Runs SQL on the replica as its superuser (pg_wal_replay_pause() and the like). */
  onReplica(sql: string): Promise<void>;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Makes a primary (initdb, replication allowed from loopback) and a replica of it (pg_basebackup
 * with a standby configuration), both started. The server refuses to run as root, so as root the
 * programs run as the postgres user.
 */
export async function startReplicaPair(): Promise<ReplicaPair> {
  const bin = postgresBin();
  const asRoot = process.getuid?.() === 0;
  const pgRun = (program: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, program), ...args]) : run(join(bin, program), args);
  const base = mkdtempSync(join(tmpdir(), 'pg-replica-'));
  if (asRoot) chownSync(base, Number((await run('id', ['-u', 'postgres'])).stdout), Number((await run('id', ['-g', 'postgres'])).stdout));
  const primaryDir = join(base, 'primary');
  const replicaDir = join(base, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const settings = (port: number) =>
    [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${base}'`,
      'wal_level = replica',
      'max_wal_senders = 4',
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
      "shared_buffers = '16MB'",
      'max_connections = 40',
    ].join('\n');
  await pgRun('initdb', ['-D', primaryDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  appendFileSync(join(primaryDir, 'postgresql.conf'), `\n${settings(primaryPort)}\n`);
  const start = (dir: string) => pgRun('pg_ctl', ['-D', dir, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  const stop = (dir: string) => pgRun('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
  await start(primaryDir);
  try {
    await pgRun('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '--no-sync']);
    // The copy carries the primary's settings; the replica listens on a port of its own.
    appendFileSync(join(replicaDir, 'postgresql.auto.conf'), `\nport = ${replicaPort}\n`);
    await start(replicaDir);
  } catch (err) {
    await stop(primaryDir);
    rmSync(base, { recursive: true, force: true });
    throw err;
  }
  const url = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    primaryUrl: url(primaryPort),
    replicaUrl: url(replicaPort),
    async onReplica(sql) {
      const client = new pg.Client({ connectionString: url(replicaPort) });
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    },
    stopReplica: () => stop(replicaDir).then(() => undefined),
    startReplica: () => start(replicaDir).then(() => undefined),
    async close() {
      await stop(replicaDir);
      await stop(primaryDir);
      rmSync(base, { recursive: true, force: true });
    },
  };
}
