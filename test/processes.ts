import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { scratchDatabase as scratchDatabaseBeside } from '../bench/roles.js';
import { createDb, type Db } from '../db/knex.js';
import { EMBEDDED_START_MS, eventually, postgresUrl, repoRoot } from './helpers.js';

export { freePort } from '../lib/free-port.js';

/**
 * The Redis key prefix (REDIS_PREFIX) of the roles this test process starts: the roles of one test
 * share their queues, and no other test process (a parallel worker, another run of the suite on
 * the same Redis) can take their jobs. The suite's global teardown removes the keys of the run.
 */
export const ROLES_REDIS_PREFIX = `test-roles-${process.env.TEST_RUN_ID ?? 'single'}-${process.pid}`;

/** The environment a role or command is started with: PATH, TMPDIR, and on Redis a prefix of this test process's own. */
function roleEnv(env: Record<string, string>): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    ...(env.REDIS_URL ? { REDIS_PREFIX: ROLES_REDIS_PREFIX } : {}),
    ...env,
  };
}

/**
 * Runs a compiled command (dist/<entry>) to its end with only the given environment; stdout and
 * stderr together, once both are closed.
 */
export function runCommand(entry: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [resolve(repoRoot, 'dist', entry), ...args], {
    env: roleEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((r) => child.once('close', (code) => r({ code, out })));
}

export interface RoleProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves once the output contains text (polling), rejects after timeoutMs. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  exited: Promise<number | null>;
}

/**
 * Runs a compiled process role (dist/main.js, dist/api/main.js, dist/workers/main.js) with only the
 * given environment, and Node options such as --max-old-space-size.
 */
export function spawnRole(entry: string, env: Record<string, string>, nodeArgs: string[] = []): RoleProcess {
  const child = spawn(process.execPath, [...nodeArgs, resolve(repoRoot, 'dist', entry)], {
    env: roleEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    child,
    output: () => output,
    exited,
    async waitFor(text, timeoutMs = EMBEDDED_START_MS) {
      await eventually(
        `${entry} to print ${text}`,
        () => {
          if (child.exitCode !== null) throw new Error(`${entry} exited (${child.exitCode}) before printing ${text}; output:\n${output}`);
          return output.includes(text);
        },
        timeoutMs,
      ).catch((err: Error) => {
        throw err.message.startsWith('timed out') ? new Error(`${entry} did not print ${text} within ${timeoutMs} ms; output:\n${output}`) : err;
      });
    },
  };
}

/** A database of its own: the spawned processes use the public schema of DATABASE_URL. */
export function scratchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  return scratchDatabaseBeside(postgresUrl, `crash_${process.pid}_${Date.now()}`);
}

/**
 * For a describe block whose tests run process roles on a database of their own: the database is
 * made before the tests and dropped after them, once every role started through start() is killed.
 */
export function scratchRoles(): { readonly url: string; readonly db: Db; start(entry: string, env: Record<string, string>, nodeArgs?: string[]): RoleProcess } {
  let database: { url: string; drop(): Promise<void> };
  let db: Db | undefined;
  const processes: RoleProcess[] = [];
  before(async () => {
    database = await scratchDatabase();
  });
  after(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await db?.destroy();
    await database.drop();
  });
  return {
    get url() {
      return database.url;
    },
    /** A connection to it, opened on first use (after a role has migrated it). */
    get db() {
      db ??= createDb({ databaseUrl: database.url, dataDir: '' });
      return db;
    },
    start(entry, env, nodeArgs = []) {
      const p = spawnRole(entry, env, nodeArgs);
      processes.push(p);
      return p;
    },
  };
}
