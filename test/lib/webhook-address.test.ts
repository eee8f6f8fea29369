import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { checkWebhookUrl, isPublicAddress } from '../../lib/webhook-address.js';
import { postEvent } from '../../workers/webhooks/deliver-webhook.js';

describe('Webhook addresses: no server-side request forgery', () => {
  it('takes only public unicast addresses', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2a00:1450:4001:80b::200e']) {
      expect(isPublicAddress(a), a).to.equal(true);
    }
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
      // IPv6 forms that embed an internal IPv4 address, or lie outside the public space altogether.
      '::7f00:1', // IPv4-compatible ::127.0.0.1
      '::a00:1', // ::10.0.0.1
      '::a9fe:a9fe', // ::169.254.169.254
      '::808:808', // IPv4-compatible forms are deprecated: refused whatever they embed
      '::ffff:0:7f00:1', // IPv4-translated (RFC 6145)
      '::ffff:a00:1',
      '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
      '64:ff9b::a9fe:a9fe',
      '64:ff9b::c0a8:101',
      '64:ff9b:1::7f00:1', // local-use NAT64 (RFC 8215)
      '2002:7f00:1::1', // 6to4 of 127.0.0.1
      '2002:a00:1::1',
      '2002:808:808::1', // 6to4 is deprecated (RFC 7526): refused whatever it embeds
      '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo, client 127.0.0.1
      '2001:0:7f00:1::1', // Teredo, server 127.0.0.1
      '2606:4700::5efe:7f00:1', // ISATAP interface id of 127.0.0.1
      '2606:4700::200:5efe:a00:1', // ISATAP interface id of 10.0.0.1
      '::1:2:3:4', // ::/8 is not public space
      '100::1', // discard prefix
      '2001:db8::1', // documentation
      'fec0::1', // site-local
      'ff02::1',
      'fe80::1%eth0',
      '127.1',
      '2130706433',
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
      'https://[::7f00:1]/',
      'https://[::127.0.0.1]/h',
      'https://[::ffff:0:127.0.0.1]/h',
      'https://[64:ff9b::127.0.0.1]/h',
      'https://[64:ff9b::169.254.169.254]/latest/meta-data',
      'https://[2002:7f00:1::1]/h',
      'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/h',
      'https://[2606:4700::5efe:7f00:1]/h',
      'https://0x7f.1/h',
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
      // An IPv6 form of a loopback address is refused before any connection.
      for (const host of ['[::7f00:1]', '[::ffff:7f00:1]', '[64:ff9b::7f00:1]']) {
        const embedded = await postEvent(`http://${host}:${port}/h`, {}, '{}', { timeoutMs: 1000, allowPrivate: false });
        expect(embedded.ok, host).to.equal(false);
        expect((embedded as { error: string }).error, host).to.include('not a public address');
      }
      expect(hits).to.equal(0);
      expect((await postEvent(`http://127.0.0.1:${port}/h`, {}, '{}', { timeoutMs: 1000, allowPrivate: true })).ok).to.equal(true);
      expect(hits).to.equal(1);
    } finally {
      server.close();
    }
  });
});
