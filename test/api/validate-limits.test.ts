import { request } from 'node:http';
import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { feed, leftTempDirs, listingXml, tempDirs } from '../helpers.js';
import { useTestService } from '../service.js';

/** A raw dry run whose body arrives in two parts; the second is sent when finish() is called. From localAddress when given (another loopback address: another client). */
function heldDryRun(url: string, localAddress?: string): { finish(): void; done: Promise<{ status: number; error?: string }> } {
  const body = feed(listingXml(''));
  let finish: () => void = () => undefined;
  const done = new Promise<{ status: number; error?: string }>((resolve, reject) => {
    const req = request(
      `${url}/v1/validate?currency=AUD`,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/xml', 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, error: res.statusCode === 200 ? undefined : JSON.parse(text).error }));
      },
    );
    req.on('error', reject);
    req.write(body.slice(0, 20));
    finish = () => void req.end(body.slice(20));
  });
  return { finish: () => finish(), done };
}

/** A raw dry run sent whole: `sent` once the body is all on its way, `done` with the status and when it was answered. */
function wholeDryRun(url: string, body: string): { sent: Promise<void>; done: Promise<{ status: number; at: number }> } {
  let sent: () => void = () => undefined;
  const allSent = new Promise<void>((resolve) => (sent = resolve));
  const done = new Promise<{ status: number; at: number }>((resolve, reject) => {
    const req = request(`${url}/v1/validate?currency=AUD`, { method: 'POST', headers: { 'content-type': 'application/xml' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, at: Date.now() }));
    });
    req.on('error', reject);
    req.on('finish', () => sent());
    req.end(body);
  });
  return { sent: allSent, done };
}

/** A feed of n valid listings: enough work to keep a dry run busy for a while. */
const bigFeed = (n: number) =>
  feed(
    ...Array.from({ length: n }, (_, i) =>
      listingXml('<address><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address>').replace('L1', `L${i}`),
    ),
  );

describe('POST /v1/validate is bounded: dry runs at once, answer size, requests per address', function () {
  this.timeout(30_000);
  const rig = useTestService({
    database: 'pglite',
    env: {
      VALIDATE_CONCURRENCY: '1',
      VALIDATE_WAIT_MS: '0',
      VALIDATE_UPLOADS_PER_ADDRESS: '2',
      VALIDATE_UPLOADS: '4',
      VALIDATE_MAX_PREVIEWS: '2',
      VALIDATE_MAX_ISSUES: '3',
      VALIDATE_RATE_LIMIT: '12',
    },
  });

  const dryRun = (xml: string) =>
    fetch(`${rig.svc.url}/v1/validate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ xml, context: { currency: 'AUD' } }),
    });

  it("runs a whole dry run at once while slow senders' bodies are still arriving, and admits a few at once, per address and in all", async () => {
    const held = [heldDryRun(rig.svc.url), heldDryRun(rig.svc.url, '127.0.0.2')];
    await new Promise((r) => setTimeout(r, 200));
    // Two bodies still arriving hold no running slot: a whole one runs at once (before: 503).
    const whole = await dryRun(feed(listingXml('')));
    await whole.text();
    expect(whole.status, 'a whole body is not kept waiting by slow ones').to.equal(200);
    // A third at once from the same address is past its share; from another address, past the total.
    held.push(heldDryRun(rig.svc.url));
    await new Promise((r) => setTimeout(r, 200));
    const mine = await dryRun(feed(listingXml('')));
    expect([mine.status, mine.headers.get('retry-after'), (await mine.json()).error]).to.deep.equal([
      429,
      '5',
      'this address already has 2 dry runs uploading, its limit; send this one when one of them has been answered',
    ]);
    held.push(heldDryRun(rig.svc.url, '127.0.0.2'));
    await new Promise((r) => setTimeout(r, 200));
    const beyond = await new Promise<{ status: number; error: string }>((resolve, reject) => {
      const req = request(
        `${rig.svc.url}/v1/validate?currency=AUD`,
        { method: 'POST', localAddress: '127.0.0.3', headers: { 'content-type': 'application/xml' } },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, error: JSON.parse(text).error }));
        },
      );
      req.on('error', reject);
      req.end(feed(listingXml('')));
    });
    expect(beyond).to.deep.equal({ status: 503, error: '4 dry runs are already uploading, the limit of this service; try again in a few seconds' });
    // One at a time: with VALIDATE_WAIT_MS 0 here, bodies finishing together would find the one slot taken.
    for (const h of held) {
      h.finish();
      expect((await h.done).status).to.equal(200);
    }
  });

  it('answers 503 with Retry-After to a whole body that finds no running slot free within VALIDATE_WAIT_MS', async () => {
    // A dry run of 30,000 listings (about a second of work). Small ones probe, each from an address of
    // its own (the per-address allowance), until one finds the big one in the running slot.
    const big = wholeDryRun(rig.svc.url, bigFeed(30_000));
    await big.sent;
    let busy: { status: number; retryAfter: string | undefined; error: string } | null = null;
    for (let i = 0; i < 40 && !busy; i += 1) {
      const probe = await new Promise<{ status: number; retryAfter: string | undefined; error: string }>((resolve, reject) => {
        const req = request(
          `${rig.svc.url}/v1/validate?currency=AUD`,
          { method: 'POST', localAddress: `127.0.0.${20 + i}`, headers: { 'content-type': 'application/xml' } },
          (res) => {
            let text = '';
            res.on('data', (d) => (text += d));
            res.on('end', () =>
              resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined, error: JSON.parse(text).error }),
            );
          },
        );
        req.on('error', reject);
        req.end(feed(listingXml('')));
      });
      if (probe.status === 503) busy = probe;
      else await new Promise((r) => setTimeout(r, 50));
    }
    expect(busy).to.deep.equal({ status: 503, retryAfter: '5', error: '1 dry runs are already running; try again in a few seconds' });
    expect((await big.done).status).to.equal(200);
  });

  it('keeps the first previews and issues, says truncated, and counts the whole feed', async () => {
    const xml = feed(
      ...['A', 'B', 'C', 'D'].map((id) =>
        listingXml('<address><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address>').replace('L1', id),
      ),
    );
    const res = await dryRun(xml);
    const body = await res.json();
    expect(res.status).to.equal(200);
    expect(validatorFor('ValidationResult')(body), JSON.stringify(validatorFor('ValidationResult').errors)).to.equal(true);
    expect(body.counts).to.deep.equal({ parsed: 4, valid: 4, invalid: 0 });
    expect(body.listings.map((l: { uniqueId: string }) => l.uniqueId)).to.deep.equal(['A', 'B']);
    expect(body.issues).to.have.length(3);
    expect(body.truncated).to.equal(true);
    const small = await (
      await dryRun(
        feed(
          listingXml(
            '<headline>H</headline><description>D</description><address><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address>',
          ),
        ),
      )
    ).json();
    expect(small).not.to.have.property('truncated');
  });

  it('limits dry runs per client address per hour (429)', async () => {
    let status = 0;
    for (let i = 0; i < 10 && status !== 429; i += 1) {
      const res = await dryRun(feed(listingXml('')));
      await res.text();
      status = res.status;
    }
    expect(status).to.equal(429);
  });
});

describe('POST /v1/validate holds its slot only while the client keeps up', function () {
  this.timeout(30_000);
  const rig = useTestService({
    database: 'pglite',
    env: {
      VALIDATE_CONCURRENCY: '1',
      FEED_BODY_IDLE_MS: '1000',
      VALIDATE_MAX_PREVIEWS: '100000',
      VALIDATE_RATE_LIMIT: '100',
      VALIDATE_BODY_MAX_MS: '4000',
      VALIDATE_MIN_BYTES_PER_S: '2000',
    },
  });

  const slotIsFree = async () => {
    const res = await fetch(`${rig.svc.url}/v1/validate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ xml: feed(listingXml('')), context: { currency: 'AUD' } }),
    });
    await res.text();
    return res.status;
  };

  it('answers 408 to a body that stops arriving, frees the slot, and removes what the dry run had spooled', async () => {
    const before = tempDirs('dry-run-');
    const held = heldDryRun(rig.svc.url);
    expect((await held.done).status).to.equal(408);
    expect(await slotIsFree()).to.equal(200);
    // The handler reading the body must end too (not wait forever on a body that will never come).
    expect(await leftTempDirs('dry-run-', before)).to.deep.equal([]);
  });

  /** A dry run whose body arrives `bytes` at a time every `everyMs`, never ending; resolves with the answer and when it came. */
  const paced = (bytes: number, everyMs: number) =>
    new Promise<{ status: number; error: string; afterMs: number }>((resolve, reject) => {
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const req = request(
        `${rig.svc.url}/v1/validate`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(10 << 20) } },
        (res) => {
          clearInterval(timer);
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, error: JSON.parse(text).error, afterMs: Date.now() - started }));
        },
      );
      req.on('error', (err) => {
        clearInterval(timer);
        reject(err);
      });
      req.write('{"xml": "<propertyList>');
      timer = setInterval(() => req.write(' '.repeat(bytes)), everyMs);
    });

  it('answers 408 to a body that keeps trickling in below the minimum rate, or past the time allowed, and frees the slot', async () => {
    // A few bytes just inside every idle period: the idle limit alone would let it hold the slot for ever.
    const slow = await paced(10, 400);
    expect(slow.status).to.equal(408);
    expect(slow.error).to.match(/^the request body arrived at \d+ bytes\/s, below the minimum of 2000; nothing was stored/);
    expect(await slotIsFree()).to.equal(200);
    // Fast enough, but never ending.
    const long = await paced(2048, 250);
    expect(long.status).to.equal(408);
    expect(long.error).to.match(/^the request body was not complete within 4 s/);
    expect(await slotIsFree()).to.equal(200);
    console.log(`      slot freed after ${slow.afterMs} ms (trickle) and ${long.afterMs} ms (endless)`);
  });

  it('lets a whole body wait its turn for the running slot rather than refusing it', async () => {
    // The slot is held by a dry run whose answer (several MB) is not read: it has begun answering, so
    // it is running, and it keeps the slot until the idle limit (1 s here) drops its connection.
    let held: import('node:net').Socket | undefined;
    const heldAt = await new Promise<number>((resolve, reject) => {
      const req = request(`${rig.svc.url}/v1/validate?currency=AUD`, { method: 'POST', headers: { 'content-type': 'application/xml' } }, (res) => {
        res.pause();
        held = res.socket;
        resolve(Date.now());
      });
      req.on('error', reject);
      req.end(bigFeed(8000));
    });
    try {
      const small = await wholeDryRun(rig.svc.url, feed(listingXml(''))).done;
      expect(small.status, 'a whole body waits for the slot instead of a 503').to.equal(200);
      expect(small.at - heldAt, 'answered only once the idle limit had freed the slot').to.be.at.least(950);
    } finally {
      held?.destroy();
    }
  });

  it('drops an answer the client stops reading, and frees the slot', async () => {
    const body = bigFeed(8000);
    let socket: import('node:net').Socket | undefined;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${rig.svc.url}/v1/validate?currency=AUD`, { method: 'POST', headers: { 'content-type': 'application/xml' } }, (res) => {
        res.pause(); // an answer of several MB, never read
        socket = res.socket;
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(status).to.equal(200);
    await new Promise((r) => setTimeout(r, 2500));
    try {
      expect(await slotIsFree()).to.equal(200);
    } finally {
      socket?.destroy();
    }
  });
});
