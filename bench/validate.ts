/**
 * bench/validate: the REAXML dry-run pipeline (parse, map, validate; previews not kept, so no
 * content hash) against the reader alone (saxes building each listing's element tree over the same
 * bytes, nothing mapped), in one process; then the same feed through POST /v1/validate of a
 * service process with every preview kept (streamed into the answer), against the in-process
 * pipeline, with the server's RSS growth. A bare saxes pass is printed for context.
 * Targets (issue 16): pipeline >= 0.6 of the reader alone; peak RSS < 300 MB on a 100 MB feed;
 * over HTTP >= 0.5 of the in-process pipeline and server RSS growth < 150 MB for a 100 MB feed.
 *
 *   npm run bench:validate                 # 50,000 listings (~110 MB)
 *   npm run bench:validate -- 20000        # a quicker run
 * The service uses BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); the dry
 * run touches no table.
 */
import { spawn } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { freePort } from '../lib/free-port.js';
import { decodeXmlBytes } from '../pipeline/decode.js';
import { warmGazetteers } from '../pipeline/geocode.js';
import { validateFeed } from '../pipeline/validate-feed.js';
import { bareSaxesPass, measure, readerPass, readFeedFile, syntheticListing, writeSyntheticFeed } from './synthetic-feed.js';

const LISTINGS = Number(process.argv[2] ?? 50000);
const CONTEXT = { currency: 'AUD', defaultCountry: 'AU', sourceLocale: 'en-AU' };
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const WARM_UP = `<propertyList>${syntheticListing(0)}</propertyList>`;

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/**
 * The feed through POST /v1/validate of a service process (every preview kept), read to its end:
 * seconds, the answer's size and listings, and the server's RSS growth over its idle RSS.
 */
async function overHttp(path: string): Promise<{ seconds: number; bytes: number; listings: number; rssGrowthMb: number }> {
  const port = await freePort();
  const main = resolve(fileURLToPath(import.meta.url), '../../main.js');
  const child = spawn(process.execPath, ['--max-old-space-size=1024', main], {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      DATABASE_URL,
      LOG_LEVEL: 'warn',
      VALIDATE_MAX_PREVIEWS: '10000000',
      VALIDATE_MAX_ISSUES: '10000000',
      FEED_MAX_BYTES: String(1 << 30),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i += 1) {
      if ((await fetch(`${url}/healthz`).catch(() => null))?.ok) break;
      if (i > 300) throw new Error('the service did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    // One small dry run first: what the first one loads (the gazetteer, compiled schemas) is not the feed's.
    const warm = await fetch(`${url}/v1/validate?format=reaxml`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: WARM_UP });
    if (warm.status !== 200) throw new Error(`the warm-up dry run answered ${warm.status}: ${await warm.text()}`);
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssOf(child.pid!);
    let peak = idle;
    const timer = setInterval(() => (peak = Math.max(peak, rssOf(child.pid!))), 20);
    const start = process.hrtime.bigint();
    const res = await fetch(`${url}/v1/validate?format=reaxml&currency=AUD`, {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: Readable.toWeb(createReadStream(path, { highWaterMark: 256 * 1024 })) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    if (res.status !== 200) throw new Error(`POST /v1/validate answered ${res.status}: ${await res.text()}`);
    // Count the previews as the answer streams in (each starts with {"listingKey").
    let bytes = 0;
    let listings = 0;
    const decoder = new TextDecoder();
    let tail = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      const text = tail + decoder.decode(chunk, { stream: true });
      listings += text.split('{"listingKey"').length - 1;
      tail = text.slice(-12); // shorter than the marker, so no preview is counted twice
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    clearInterval(timer);
    return { seconds, bytes, listings, rssGrowthMb: peak - idle };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-validate-'));
  const path = join(dir, 'feed.xml');
  try {
    await writeSyntheticFeed(path, LISTINGS);
    const mb = statSync(path).size / 1e6;
    // The service loads a gazetteer once, when a listing first needs it; the feed is Australian.
    warmGazetteers({ world: false });
    const bare = await measure(() => bareSaxesPass(path));
    const reader = await measure(() => readerPass(path, CONTEXT, false));
    const pipeline = await measure(() => validateFeed(decodeXmlBytes(readFeedFile(path)), CONTEXT, { keepPreviews: false }));
    if (bare.value !== LISTINGS || reader.value !== LISTINGS || pipeline.value.counts.valid !== LISTINGS) {
      throw new Error(`expected ${LISTINGS} listings, bare saw ${bare.value}, reader ${reader.value}, pipeline ${JSON.stringify(pipeline.value.counts)}`);
    }
    const http = await overHttp(path);
    if (http.listings !== LISTINGS) throw new Error(`expected ${LISTINGS} previews over HTTP, counted ${http.listings}`);
    const ratio = reader.seconds / pipeline.seconds;
    const httpRatio = pipeline.seconds / http.seconds;
    const row = (name: string, m: { seconds: number; peakMb: number }) =>
      `${name.padEnd(22)} ${(LISTINGS / m.seconds).toFixed(0).padStart(8)} listings/s ${(mb / m.seconds).toFixed(1).padStart(7)} MB/s  ${m.seconds.toFixed(2)} s  peak RSS ${m.peakMb.toFixed(0)} MB`;
    console.log(`feed: ${LISTINGS} listings, ${mb.toFixed(1)} MB`);
    console.log(row('bare saxes (context)', bare));
    console.log(row('reader alone (ceiling)', reader));
    console.log(row('pipeline', pipeline));
    console.log(
      `${'over HTTP, all previews'.padEnd(22)} ${(LISTINGS / http.seconds).toFixed(0).padStart(8)} listings/s ${(mb / http.seconds).toFixed(1).padStart(7)} MB/s  ${http.seconds.toFixed(2)} s  answer ${(http.bytes / 1e6).toFixed(0)} MB, server RSS +${http.rssGrowthMb.toFixed(0)} MB`,
    );
    console.log(`pipeline / reader alone: ${ratio.toFixed(2)} (target >= 0.60) ${ratio >= 0.6 ? 'MET' : 'NOT MET'}`);
    // What the target leaves for mapping and validation once the reader has run.
    const budget = ((reader.seconds / 0.6 - reader.seconds) / LISTINGS) * 1e6;
    const spent = ((pipeline.seconds - reader.seconds) / LISTINGS) * 1e6;
    console.log(
      `  context: reader alone / bare ${(bare.seconds / reader.seconds).toFixed(2)}; after reading, the target leaves ${budget.toFixed(0)} µs per listing for mapping and validation; they take ${spent.toFixed(0)} µs`,
    );
    console.log(`over HTTP / in-process pipeline: ${httpRatio.toFixed(2)} (target >= 0.50) ${httpRatio >= 0.5 ? 'MET' : 'NOT MET'}`);
    const growthNote =
      mb >= 95 ? `(target < 150 MB for a 100 MB feed) ${http.rssGrowthMb < 150 ? 'MET' : 'NOT MET'}` : '(run with 50000 listings for the 100 MB target)';
    console.log(`server RSS growth over HTTP: ${http.rssGrowthMb.toFixed(0)} MB ${growthNote}`);
    const rssNote =
      mb >= 95 ? `(target < 300 MB on a 100 MB feed) ${pipeline.peakMb < 300 ? 'MET' : 'NOT MET'}` : '(run with 50000 listings for the 100 MB target)';
    console.log(`pipeline peak RSS: ${pipeline.peakMb.toFixed(0)} MB ${rssNote}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
