import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { EMBEDDED_START_MS } from '../helpers.js';
import { startTestService, type TestService } from '../service.js';

/** A local stand-in for an FX source: answers what the test sets, or fails on demand. */
async function source(contentType: string): Promise<{ url: string; body: string; status: number; hits: number; close(): Promise<void> }> {
  const state = { url: '', body: '', status: 200, hits: 0, close: async (): Promise<void> => undefined };
  const server: Server = createServer((_req, res) => {
    state.hits += 1;
    res.writeHead(state.status, { 'content-type': contentType }).end(state.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rates`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

const ECB = (day: string, usd: string) => `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <gesmes:subject>Reference rates</gesmes:subject>
  <Cube><Cube time='${day}'><Cube currency='USD' rate='${usd}'/><Cube currency='AUD' rate='1.6'/></Cube></Cube>
</gesmes:Envelope>`;

describe('GET /v1/fx: bundled snapshot, live sources with fallback', function () {
  // Each test starts an embedded service: a first PGlite start may take that long on a busy machine.
  this.timeout(EMBEDDED_START_MS);

  it('static: serves the bundled ECB snapshot with its date', async () => {
    const svc = await startTestService({ database: 'pglite' });
    try {
      const body = await (await fetch(`${svc.url}/v1/fx`)).json();
      expect(validatorFor('FxRates')(body)).to.equal(true);
      expect(body).to.include({ base: 'EUR', asOf: '2026-10-02' });
      expect(body.rates).to.include({ EUR: 1, USD: 1.1225, AUD: 1.6176, NZD: 2.0002 });
    } finally {
      await svc.close();
    }
  });

  describe('live', () => {
    let primary: Awaited<ReturnType<typeof source>>;
    let backup: Awaited<ReturnType<typeof source>>;
    let svc: TestService;
    before(async () => {
      primary = await source('application/xml');
      backup = await source('application/json');
      svc = await startTestService({ database: 'pglite', env: { FX_SOURCE: 'live', FX_PRIMARY_URL: primary.url, FX_BACKUP_URL: backup.url }, fxRefreshMs: 0 });
    });
    after(async () => {
      // Whatever the hook above got to start (a start that timed out leaves the rest unset).
      await svc?.close();
      await primary?.close();
      await backup?.close();
    });
    const fx = async () => (await fetch(`${svc.url}/v1/fx`)).json();
    /** With a zero cache lifetime every request answers from the cache and refreshes behind it: ask until the answer moves. */
    const eventually = async (expected: { asOf: string; source: string }) => {
      let body: { asOf: string; source: string } | undefined;
      for (let i = 0; i < 200; i += 1) {
        body = await fx();
        if (body!.asOf === expected.asOf && body!.source === expected.source) return body!;
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(body).to.deep.include(expected);
      return body!;
    };

    it('takes the primary source, falls back to the backup, then to the last good rates', async () => {
      primary.body = ECB('2026-11-20', '1.05');
      backup.body = JSON.stringify({
        result: 'success',
        base_code: 'EUR',
        time_last_update_unix: Date.UTC(2026, 10, 21) / 1000,
        rates: { EUR: 1, USD: 1.07, NZD: 1.9 },
      });
      const first = await fx();
      expect(first).to.deep.include({ base: 'EUR', asOf: '2026-11-20', source: 'primary' });
      expect(first.rates).to.deep.equal({ EUR: 1, USD: 1.05, AUD: 1.6 });

      primary.status = 503;
      const viaBackup = await eventually({ asOf: '2026-11-21', source: 'backup' });
      expect((viaBackup as unknown as { rates: Record<string, number> }).rates.USD).to.equal(1.07);

      // Both down, or the primary answering garbage: the last good rates stay.
      backup.status = 500;
      const backupHits = backup.hits;
      for (let i = 0; i < 20 && backup.hits < backupHits + 2; i += 1) await fx();
      expect(backup.hits).to.be.at.least(backupHits + 1);
      primary.status = 200;
      primary.body = '<html>maintenance</html>';
      for (let i = 0; i < 5; i += 1) expect(await fx()).to.deep.include({ asOf: '2026-11-21', source: 'backup' });

      primary.body = ECB('2026-11-23', '1.10');
      await eventually({ asOf: '2026-11-23', source: 'primary' });
    });
  });

  it('live with both sources down from the start: the bundled snapshot, never an error', async () => {
    const svc = await startTestService({
      database: 'pglite',
      env: { FX_SOURCE: 'live', FX_PRIMARY_URL: 'http://127.0.0.1:9/none', FX_BACKUP_URL: 'http://127.0.0.1:9/none' },
    });
    try {
      const res = await fetch(`${svc.url}/v1/fx`);
      expect(res.status).to.equal(200);
      expect(await res.json()).to.include({ asOf: '2026-10-02', base: 'EUR' });
    } finally {
      await svc.close();
    }
  });
});
