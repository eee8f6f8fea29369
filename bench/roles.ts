import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createDb } from '../db/knex.js';

const dist = fileURLToPath(new URL('..', import.meta.url));

/** The V8 flags every role of the service runs with (Procfile), for the processes a benchmark starts. */
export const NODE_FLAGS = ['--max-old-space-size=1024', '--max-semi-space-size=16'];

/**
 * BENCH_CPU_PROF=<folder>: every role a benchmark starts writes a V8 CPU profile there when it
 * exits (open it in Chrome's DevTools, or read it with tools of your own).
 */
const PROFILE_FLAGS = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];

/**
 * A service role (dist/<entry>, with the heap limit the roles run with) started for a benchmark;
 * resolves once its output shows `ready` (a log line's text, so the role must log at info).
 */
export async function startRole(entry: string, env: Record<string, string>, ready: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...NODE_FLAGS, ...PROFILE_FLAGS, `${dist}${entry}`], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (d: Buffer) => {
    output = (output + d).slice(-20000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const deadline = Date.now() + 60_000;
  while (!output.includes(ready)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${entry} did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}

/** Stops a role started by startRole and waits until it has exited. */
export async function stopRole(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

/** A scratch database created beside the one `baseUrl` names, for roles a benchmark starts: its URL, and drop() to remove it. */
export async function scratchDatabase(baseUrl: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = createDb({ databaseUrl: baseUrl, dataDir: '' });
  await admin.raw('CREATE DATABASE ??', [name]);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      try {
        await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [name]);
      } finally {
        await admin.destroy();
      }
    },
  };
}
