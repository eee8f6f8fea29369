import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { createDb } from '../db/knex.js';
import { EMBEDDED_START_MS, eventually, fixture, repoRoot } from './helpers.js';
import { freePort, runCommand } from './processes.js';

describe('the all-in-one process (npm start)', () => {
  it('starts on the embedded default with a banner, dry-runs a real feed, serves key:create and operator:token, logs without credentials, and stops cleanly on SIGTERM', async function () {
    this.timeout(3 * EMBEDDED_START_MS);
    const dataDir = mkdtempSync(join(tmpdir(), 'process-test-'));
    const port = await freePort();
    const child = spawn(process.execPath, [resolve(repoRoot, 'dist/main.js')], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    try {
      // A first start runs initdb and every migration inside PGlite: 3 s on a quiet machine, over 40 s on a busy one.
      await eventually('listening', () => output.includes('"listening"'), EMBEDDED_START_MS).catch(() => undefined);
      expect(output).to.include('"listening"');
      const res = await fetch(`http://127.0.0.1:${port}/v1/validate?currency=AUD`, {
        method: 'POST',
        body: fixture('Residential/REA-Residential-Current.xml'),
        headers: { 'content-type': 'application/xml', authorization: 'Bearer secret-token-value' },
      });
      expect(res.status).to.equal(200);
      expect((await res.json()).counts).to.deep.equal({ parsed: 1, valid: 1, invalid: 0 });
      // The first start made an operator token and showed it once: the console and admin API open with it.
      const token = /operator token for \/console.*?: (lop_[A-Za-z0-9_-]+)/.exec(output)?.[1];
      expect(token, 'the first-start token in the log').to.be.a('string');
      expect((await fetch(`http://127.0.0.1:${port}/v1/admin/stats`, { headers: { authorization: `Bearer ${token}` } })).status).to.equal(200);
      // And a banner for the person who started it, in plain text: where to go, and that token.
      const banner = output.slice(output.indexOf('Listing service: '));
      expect(banner).to.include(`Listing service: http://localhost:${port}\n`);
      expect(banner).to.include(`console   http://localhost:${port}/console`).and.include(`API docs  http://localhost:${port}/docs`);
      expect(banner.split('\n').slice(0, 7).join('\n'), 'the token in the banner').to.include(token);
      // While it runs, npm run key:create reaches it through its API (the embedded database takes one process).
      const key = await runCommand('db/commands/create-feed-key.js', ['--client', 'Ops', '--email', 'ops@example.com', '--office', 'OFF1'], {
        DATA_DIR: dataDir,
      });
      expect(key.code, key.out).to.equal(0);
      const printed = JSON.parse(key.out);
      expect(printed).to.deep.include({ status: 'active', officeIds: ['OFF1'] });
      const whoami = await fetch(`http://127.0.0.1:${port}/v1/feeds/whoami`, { headers: { authorization: `Bearer ${printed.key}` } });
      expect((await whoami.json()).status).to.equal('active');
      expect(statSync(join(dataDir, 'service.json')).mode & 0o077, 'the command token is for the service account only').to.equal(0);
      // npm run operator:token too: a named token made, refused again by name, listed and revoked, through the service.
      const operatorToken = (args: string[]) => runCommand('db/commands/operator-token.js', args, { DATA_DIR: dataDir });
      const made = await operatorToken(['create', '--name', 'alice']);
      expect(made.code, made.out).to.equal(0);
      const alice = JSON.parse(made.out).token;
      expect((await fetch(`http://127.0.0.1:${port}/v1/admin/stats`, { headers: { authorization: `Bearer ${alice}` } })).status).to.equal(200);
      const twice = await operatorToken(['create', '--name', 'alice']);
      expect([twice.code, twice.out.trim()]).to.deep.equal([
        1,
        `the running service (pid ${child.pid}) refused: an active token named alice exists; revoke it first`,
      ]);
      expect(JSON.parse((await operatorToken(['list'])).out).map((t: { name: string }) => t.name)).to.have.members(['alice', 'first-start']);
      expect((await operatorToken(['revoke', '--name', 'alice'])).code).to.equal(0);
      expect((await fetch(`http://127.0.0.1:${port}/v1/admin/stats`, { headers: { authorization: `Bearer ${alice}` } })).status).to.equal(401);
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
      expect(output).to.include('"stopped"');
      expect(existsSync(join(dataDir, 'service.json')), 'the command token ends with the process').to.equal(false);
      expect(output).not.to.include(printed.key);
      expect(output).not.to.include(alice);
      expect(output).not.to.include('secret-token-value');
      expect(output).not.to.include('xmlpassword');
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('stops when the shell npm started it under is killed, and takes over a lock left by a process that died', async function () {
    this.timeout(3 * EMBEDDED_START_MS);
    const dataDir = mkdtempSync(join(tmpdir(), 'process-orphan-'));
    const port = await freePort();
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: String(port), npm_lifecycle_event: 'start' };
    const main = resolve(repoRoot, 'dist/main.js');
    const watch = (child: ReturnType<typeof spawn>) => {
      const seen = { output: '' };
      child.stdout?.on('data', (d) => (seen.output += d));
      child.stderr?.on('data', (d) => (seen.output += d));
      return seen;
    };
    const until = async (done: () => boolean, what: string) => {
      await eventually(what, done, EMBEDDED_START_MS).catch(() => undefined);
      expect(done(), what).to.equal(true);
    };
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      // As npm runs a script: a shell that does not exec the service. SIGTERM ends the shell only.
      const shell = spawn('sh', ['-c', `"${process.execPath}" "${main}"; true`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const first = watch(shell);
      await until(() => first.output.includes('"listening"'), 'listening');
      const servicePid = Number(readFileSync(join(dataDir, 'pglite.pid'), 'utf8'));
      shell.kill('SIGTERM');
      await until(() => !alive(servicePid), 'the service stops once its shell is gone');
      expect(existsSync(join(dataDir, 'pglite.pid')), 'and frees the embedded database').to.equal(false);

      // A lock left by a process that no longer exists is taken over, with a log line.
      writeFileSync(join(dataDir, 'pglite.pid'), String(servicePid));
      const again = spawn(process.execPath, [main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const second = watch(again);
      await until(() => second.output.includes('"listening"'), 'listening again');
      expect(second.output).to.include('lock taken over').and.include(`"pid":${servicePid}`);
      const exited = new Promise<number | null>((r) => again.once('exit', (code) => r(code)));
      again.kill('SIGTERM');
      expect(await exited).to.equal(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to start with bad configuration and names every problem', async () => {
    const { code, out } = await runCommand('main.js', [], { PORT: 'abc', FX_SOURCE: 'x' });
    expect(code).to.equal(1);
    expect(out).to.include('PORT').and.include('FX_SOURCE');
  });
});

describe('the operator command npm run key:create', () => {
  it('creates an active key on the configured database and prints it once', async function () {
    this.timeout(3 * EMBEDDED_START_MS);
    const dataDir = mkdtempSync(join(tmpdir(), 'key-command-'));
    try {
      const run = (args: string[]) => runCommand('db/commands/create-feed-key.js', args, { DATA_DIR: dataDir });
      const bad = await run(['--client', 'Ops']);
      expect(bad.code).to.equal(2);
      expect(bad.out).to.include('--email').and.include('--office');
      const odd = await run(['--client', 'Ops', '--email', 'ops@example.com', '--office', '<script>']);
      expect([odd.code, odd.out]).to.satisfy(([code, out]: [number, string]) => code === 2 && out.includes('"<script>" is not an office id'));
      const ok = await run(['--client', 'Ops import', '--email', 'ops@example.com', '--office', 'OFF1', '--office', 'OFF2']);
      expect(ok.code, ok.out).to.equal(0);
      const printed = JSON.parse(ok.out);
      expect(printed).to.include({ status: 'active' });
      expect(printed.officeIds).to.deep.equal(['OFF1', 'OFF2']);
      expect(printed.key).to.match(/^lfk_/);
      const db = createDb({ databaseUrl: null, dataDir });
      const [row] = await db('feed_keys').select('status', 'key_hash');
      await db.destroy();
      expect(row.status).to.equal('active');
      expect(row.key_hash).not.to.equal(printed.key);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the operator command npm run operator:token', () => {
  it('with no service running: creates a named token on the database, lists it and revokes it, audited', async function () {
    this.timeout(3 * EMBEDDED_START_MS);
    const dataDir = mkdtempSync(join(tmpdir(), 'operator-command-'));
    const run = (args: string[]) => runCommand('db/commands/operator-token.js', args, { DATA_DIR: dataDir });
    try {
      expect((await run(['create'])).code).to.equal(2);
      const created = await run(['create', '--name', 'alice']);
      expect(created.code, created.out).to.equal(0);
      const { token } = JSON.parse(created.out);
      expect(token).to.match(/^lop_/);
      // (One active token per name, and the token opening the admin API: the test above, through the service.)
      expect(JSON.parse((await run(['list'])).out).map((t: { name: string }) => t.name)).to.deep.equal(['alice']);
      expect((await run(['revoke', '--name', 'alice'])).code).to.equal(0);
      const db = createDb({ databaseUrl: null, dataDir });
      const { operatorTokenName } = await import('../db/operators.js');
      expect(await operatorTokenName(db, token)).to.equal(null);
      expect(await db('audit_log').orderBy('id').select('actor', 'action')).to.deep.equal([
        { actor: 'command:operator-token', action: 'operator_token.create' },
        { actor: 'command:operator-token', action: 'operator_token.revoke' },
      ]);
      await db.destroy();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('what a start loads', () => {
  it('leaves out BullMQ, ioredis, Bull Board, the SFTP client, nodemailer and the HTML readers until a setting, a message or a feed needs them (a quicker start)', async () => {
    // The modules a start of the all-in-one process imports, with a hook noting every file loaded.
    const entries = ['workers/run-process.js', 'db/role-database.js', 'api/web-role.js', 'workers/runtime.js'].map((entry) =>
      JSON.stringify(pathToFileURL(resolve(repoRoot, 'dist', entry)).href),
    );
    const script = [
      "import { registerHooks } from 'node:module';",
      'const loaded = [];',
      'registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });',
      ...entries.map((entry) => `await import(${entry});`),
      'process.stdout.write(JSON.stringify(loaded));',
    ].join('\n');
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    expect(await new Promise((r) => child.once('exit', r))).to.equal(0);
    const packages = new Set((JSON.parse(out) as string[]).map((url) => /node_modules\/((@[^/]+\/)?[^/]+)\//.exec(url)?.[1]).filter(Boolean));
    expect(packages, 'the web app and the database are loaded').to.include.members(['express', 'knex', '@electric-sql/pglite']);
    for (const name of ['bullmq', 'ioredis', '@bull-board/api', 'ssh2-sftp-client', 'ssh2', 'nodemailer', 'sanitize-html', 'html-to-text']) {
      expect(packages, name).not.to.include(name);
    }
  });
});
