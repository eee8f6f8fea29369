import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { fixture, repoRoot } from './helpers.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

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
    const child = spawn(process.execPath, [resolve(repoRoot, 'dist/main.js')], { env: { PATH: process.env.PATH, PORT: 'abc', FX_SOURCE: 'x' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code).to.equal(1);
    expect(stderr).to.include('PORT').and.include('FX_SOURCE');
  });
});
