import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { expect } from 'chai';
import { eventually, feed } from '../helpers.js';
import { freePort, scratchRoles } from '../processes.js';
import { redisUrl } from '../service.js';
import { activeKey, officeListing } from './client.js';

/**
 * Padding inside an XML comment, with characters JSON must escape (quotes, backslashes, newlines).
 * 8 bodies of PADDING_MB at once come to the web role's whole heap limit (HEAP_MB), as 8 x 16 MB in
 * a 128 MB heap did (those killed a role that read the JSON whole): read whole, each body is held at
 * least twice (the text and the parsed xml), twice the limit. 8 x 8 MB in 64 MB tests the same.
 */
const PADDING_MB = 8;
const HEAP_MB = 8 * PADDING_MB;
const padding = Buffer.from(JSON.stringify(`<!-- ${'"filler" \\ line\n\t'.repeat((PADDING_MB * 1024 * 1024) / 17)} -->`).slice(1, -1));

/** Peak resident memory of a process, in MB (Linux). */
async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]) / 1024;
}

interface Upload {
  /** Sends the rest of the body and resolves with the answer. */
  finish(): Promise<{ status: number; body: any; retryAfter?: string }>;
}

/** A JSON feed request whose xml is a one-listing feed padded to PADDING_MB; half the body is sent at once. */
function startUpload(port: number, key: string, office: string, id: string): Upload {
  const [head, tail] = feed(officeListing(office, id)).split('<residential');
  const parts = [
    Buffer.from(`{"mode":"incremental","context":{"currency":"AUD"},"xml":${JSON.stringify(head).slice(0, -1)}`),
    padding,
    Buffer.from(`${JSON.stringify(`<residential${tail}`).slice(1)}}`),
  ];
  const length = parts.reduce((n, p) => n + p.length, 0);
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/v1/feeds',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': length },
  });
  const answer = new Promise<{ status: number; body: any; retryAfter?: string }>((resolve, reject) => {
    req.once('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.once('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), retryAfter: res.headers['retry-after'] }));
    });
    // A refused upload is answered before its body is read; the server may then close the socket.
    req.once('error', reject);
  });
  req.write(parts[0]);
  req.write(padding.subarray(0, padding.length / 2));
  return {
    async finish() {
      req.end(Buffer.concat([padding.subarray(padding.length / 2), parts[2]]));
      return answer;
    },
  };
}

/**
 * A request that may be refused before its body is sent: only the headers and a few bytes go out,
 * and nothing more is written while the answer is awaited. (Writing the rest of a body the server
 * has refused races its closing of the socket: the client can see ECONNRESET before the answer.)
 */
function refusedUpload(port: number, key: string): Promise<{ status: number; body: any; retryAfter?: string }> {
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/v1/feeds',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': padding.length },
  });
  const answer = new Promise<{ status: number; body: any; retryAfter?: string }>((resolve, reject) => {
    req.once('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.once('end', () => {
        resolve({ status: res.statusCode!, body: JSON.parse(text), retryAfter: res.headers['retry-after'] });
        req.destroy();
      });
    });
    req.once('error', reject);
  });
  req.write('{"mode":');
  return answer;
}

describe('Feed uploads are bounded: the JSON form is streamed, uploads at once are capped per key and in all', function () {
  this.timeout(180_000);
  const roles = scratchRoles();

  it(`takes 8 JSON feed requests of ${PADDING_MB} MB at once in a web role held to a ${HEAP_MB} MB heap, refusing a 9th with 429 or 503`, async () => {
    const port = await freePort();
    const env = {
      DATABASE_URL: roles.url,
      REDIS_URL: redisUrl,
      PORT: String(port),
      FEED_SYNC_WAIT_MS: '0',
      FEED_UPLOADS_PER_KEY: '6',
      FEED_UPLOADS_TOTAL: '8',
    };
    const web = roles.start('api/main.js', env, [`--max-old-space-size=${HEAP_MB}`]);
    await web.waitFor('"listening"');
    const db = roles.db;
    const [keyA, keyB, keyC] = [await activeKey(db, ['OFFA']), await activeKey(db, ['OFFB']), await activeKey(db, ['OFFC'])];
    const idle = await peakRssMb(web.child.pid!);

    const uploads = [
      ...Array.from({ length: 6 }, (_, i) => startUpload(port, keyA, 'OFFA', `A${i}`)),
      ...Array.from({ length: 2 }, (_, i) => startUpload(port, keyB, 'OFFB', `B${i}`)),
    ];
    // Let the 8 take their slots before the extra ones arrive.
    await new Promise((r) => setTimeout(r, 1000));
    const overKey = await refusedUpload(port, keyA);
    expect(overKey.status, JSON.stringify(overKey.body)).to.equal(429);
    expect(overKey.body.error).to.match(/already has 6 feeds uploading/);
    expect(overKey.retryAfter).to.match(/^\d+$/);
    const overAll = await refusedUpload(port, keyC);
    expect(overAll.status, JSON.stringify(overAll.body)).to.equal(503);
    expect(overAll.body.error).to.match(/8 feeds are already uploading/);
    expect(overAll.retryAfter).to.match(/^\d+$/);

    const answers = await Promise.all(uploads.map((u) => u.finish()));
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).to.equal(202);
    expect(web.child.exitCode, web.output()).to.equal(null);
    const peak = await peakRssMb(web.child.pid!);
    console.log(
      `      web role RSS: ${idle.toFixed(0)} MB idle, peak ${peak.toFixed(0)} MB with 8 JSON bodies of ${(padding.length / 2 ** 20).toFixed(0)} MB at once (heap limit ${HEAP_MB} MB)`,
    );

    // A slot is free again once a feed is stored: the key may send another.
    const again = startUpload(port, keyC, 'OFFC', 'C0');
    expect((await again.finish()).status).to.equal(202);

    // The streamed xml was stored whole: a worker ingests every feed.
    const worker = roles.start('workers/main.js', env);
    await eventually('every feed ingested', async () => (await db('feed_events').whereNot({ status: 'done' }).count({ n: '*' }))[0].n === '0', 120_000);
    const events = await db('feed_events').select('status', 'body_kind', 'body_bytes');
    expect(events).to.have.length(9);
    for (const e of events) expect([e.status, e.body_kind]).to.deep.equal(['done', 'text']);
    const keys = (await db('listings').select('listing_key')).map((r) => r.listing_key).sort();
    expect(keys).to.deep.equal(['OFFA/A0', 'OFFA/A1', 'OFFA/A2', 'OFFA/A3', 'OFFA/A4', 'OFFA/A5', 'OFFB/B0', 'OFFB/B1', 'OFFC/C0']);
    web.child.kill('SIGTERM');
    worker.child.kill('SIGTERM');
    await Promise.all([web.exited, worker.exited]);
  });
});
