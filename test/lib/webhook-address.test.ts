import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { checkWebhookUrl, isPublicAddress } from '../../lib/webhook-address.js';
import { postEvent } from '../../workers/webhooks/deliver-webhook.js';

describe('Webhook addresses: no server-side request forgery', () => {
  it('takes only public unicast addresses', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) expect(isPublicAddress(a), a).to.equal(true);
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
      'not an address',
    ]) {
      expect(isPublicAddress(a), a).to.equal(false);
    }
  });

  it('refuses http, credentials, fragments and names or literals of internal addresses when registering', async () => {
    const refused = async (url: string) => {
      try {
        await checkWebhookUrl(url, false);
        return null;
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(await refused('http://93.184.216.34/hook')).to.include('https');
    expect(await refused('ftp://93.184.216.34/hook')).to.include('https');
    expect(await refused('https://user:pw@93.184.216.34/hook')).to.include('password');
    expect(await refused('https://93.184.216.34/hook#x')).to.include('fragment');
    expect(await refused('not a url')).to.include('not an absolute URL');
    for (const url of [
      'https://127.0.0.1/h',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/h',
      'https://[::ffff:7f00:1]/h',
      'https://localhost/h',
      'https://10.0.0.8:8443/h',
    ]) {
      expect(await refused(url), url).to.include('not a public address');
    }
    expect(await checkWebhookUrl('https://93.184.216.34/hook?a=1', false)).to.equal('https://93.184.216.34/hook?a=1');
    // The operator's setting allows loopback and plain http (development, an intranet).
    expect(await checkWebhookUrl('http://127.0.0.1:9/hook', true)).to.equal('http://127.0.0.1:9/hook');
  });

  it('checks again when sending: a loopback address, by literal or by name, is never connected to', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits += 1;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const literal = await postEvent(`http://127.0.0.1:${port}/h`, {}, '{}', { timeoutMs: 1000, allowPrivate: false });
      expect(literal).to.include({ ok: false });
      const byName = await postEvent(`http://localhost:${port}/h`, {}, '{}', { timeoutMs: 1000, allowPrivate: false });
      expect(byName.ok).to.equal(false);
      expect((byName as { error: string }).error).to.include('not a public address');
      expect(hits).to.equal(0);
      expect((await postEvent(`http://127.0.0.1:${port}/h`, {}, '{}', { timeoutMs: 1000, allowPrivate: true })).ok).to.equal(true);
      expect(hits).to.equal(1);
    } finally {
      server.close();
    }
  });
});
