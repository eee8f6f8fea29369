import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { createDb } from '../db/knex.js';
import { fixture, repoRoot } from './helpers.js';
import { freePort, runCommand } from './processes.js';

describe('the all-in-one process (npm start)', () => {
  it('starts on the embedded default, dry-runs a real feed, logs without credentials, and stops cleanly on SIGTERM', async function () {
    this.timeout(60000);
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
      for (let i = 0; i < 100 && !output.includes('"listening"'); i += 1) await new Promise((r) => setTimeout(r, 200));
      expect(output).to.include('"listening"');
      const res = await fetch(`http://127.0.0.1:${port}/v1/validate?currency=AUD`, {
        method: 'POST',
        body: fixture('Residential/REA-Residential-Current.xml'),
        headers: { 'content-type': 'application/xml', authorization: 'Bearer secret-token-value' },
      });
      expect(res.status).to.equal(200);
      expect((await res.json()).counts).to.deep.equal({ parsed: 1, valid: 1, invalid: 0 });
      // While it runs, an operator command on the same embedded database is refused with the way out.
      const key = await runCommand('db/commands/create-feed-key.js', ['--client', 'Ops', '--email', 'ops@example.com', '--office', 'OFF1'], {
        DATA_DIR: dataDir,
      });
      expect(key.code).to.equal(1);
      expect(key.out).to.match(/in use by another process \(pid \d+\).*POST \/v1\/admin\/keys/);
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
      expect(output).to.include('"stopped"');
      expect(output).not.to.include('secret-token-value');
      expect(output).not.to.include('xmlpassword');
    } finally {
      child.kill('SIGKILL');
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
    this.timeout(60000);
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
  it('creates a named token that opens the admin API, lists it, and revokes it', async function () {
    this.timeout(60000);
    const dataDir = mkdtempSync(join(tmpdir(), 'operator-command-'));
    const run = (args: string[]) => runCommand('db/commands/operator-token.js', args, { DATA_DIR: dataDir });
    try {
      expect((await run(['create'])).code).to.equal(2);
      const created = await run(['create', '--name', 'alice']);
      expect(created.code, created.out).to.equal(0);
      const { token } = JSON.parse(created.out);
      expect(token).to.match(/^lop_/);
      expect((await run(['create', '--name', 'alice'])).code, 'one active token per name').to.equal(1);
      expect(JSON.parse((await run(['list'])).out).map((t: { name: string }) => t.name)).to.deep.equal(['alice']);
      const db = createDb({ databaseUrl: null, dataDir });
      const { operatorTokenName } = await import('../db/operators.js');
      expect(await operatorTokenName(db, token)).to.equal('alice');
      await db.destroy();
      expect((await run(['revoke', '--name', 'alice'])).code).to.equal(0);
      const again = createDb({ databaseUrl: null, dataDir });
      expect(await operatorTokenName(again, token)).to.equal(null);
      expect(await again('audit_log').orderBy('id').pluck('action')).to.deep.equal(['operator_token.create', 'operator_token.revoke']);
      await again.destroy();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
