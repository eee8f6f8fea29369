/**
 * bench/validate: the REAXML dry-run pipeline (parse, map, validate; previews not kept, so no
 * content hash) against the reader alone (saxes building each listing's element tree over the same
 * bytes, nothing mapped), in one process; then the same feed through POST /v1/validate of a
 * service process with every preview kept (streamed into the answer), against the in-process
 * pipeline, with the server's RSS growth. A bare saxes pass is printed for context.
 * Each pass first runs once over a small feed (the JIT, compiled schemas and the gazetteer warm up,
 * as in a service that has been running); then the bare pass, the reader and the pipeline take
 * turns for BENCH_ROUNDS rounds (default 3), and the dry run over HTTP runs as many times against
 * one service process. The figures are the rounds' means, so a slow spell on this shared machine
 * lands on every pass alike.
 * Targets (issue 16): pipeline >= 0.6 of the reader alone; peak RSS < 300 MB on a 100 MB feed;
 * over HTTP >= 0.5 of the in-process pipeline and server RSS growth < 150 MB for a 100 MB feed.
 * Issue 64: one thread >= 2x and two reading threads >= 3x the fastest peer parser. With
 * BENCH_PEER_CMD set (a shell command given the feed's path as its last argument, printing the
 * listings it read as its last line), the peer runs over the same feed in every round, taking its
 * turn after the threaded pass, and those two ratios are printed (docs/performance.md: the peer).
 *
 *   npm run bench:validate                 # 50,000 listings (~110 MB)
 *   npm run bench:validate -- 20000        # a quicker run
 * The service uses BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); the dry
 * run touches no table.
 */
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { type IncomingMessage, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { freePort } from '../lib/free-port.js';
import { dryRunOutcome } from '../pipeline/apply-listing.js';
import { decodeXmlBytes } from '../pipeline/decode.js';
import type { FeedListing } from '../pipeline/feed-listing.js';
import { warmGazetteers } from '../pipeline/geocode.js';
import { readReaxmlHere } from '../pipeline/reaxml/listing-reader.js';
import { closeReadThreads, configureReadThreads } from '../pipeline/reaxml/read-threads.js';
import { validateFeed } from '../pipeline/validate-feed.js';
import { type PeerRun, runPeer } from './peer-command.js';
import { memoryOf } from './proc-memory.js';
import { startRole, stopRole } from './roles.js';
import { bareSaxesPass, type Measured, measure, readerPass, readFeedFile, writeSyntheticFeed } from './synthetic-feed.js';

const LISTINGS = Number(process.argv[2] ?? 50000);
const CONTEXT = { currency: 'AUD', defaultCountry: 'AU', sourceLocale: 'en-AU' };
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const WARM_UP_LISTINGS = 2000;
/** Reading threads for the threaded pass: one per core of the machine the targets are set for. */
const THREADS = Number(process.env.BENCH_THREADS ?? 2);
/** How each listing preview in the dry run's answer starts. */
const MARKER = Buffer.from('{"listingKey"');
/** A peer parser's command (see bench/peer-command.ts), run beside the passes when set. */
const PEER_CMD = process.env.BENCH_PEER_CMD?.trim() || null;

/**
 * One dry run of the feed at path through POST /v1/validate (every preview kept), read to its end.
 * The client is node:http piping the file up and counting the answer's previews in its bytes as
 * they come (each starts with {"listingKey"), no decoding: this process shares the machine's two
 * cores with the service, so the client is kept as light as it can be.
 */
async function postFeed(url: string, path: string): Promise<{ seconds: number; bytes: number; listings: number }> {
  const start = process.hrtime.bigint();
  const res = await new Promise<IncomingMessage>((resolvePost, reject) => {
    const req = request(`${url}/v1/validate?format=reaxml&currency=AUD`, { method: 'POST', headers: { 'content-type': 'application/xml' } }, resolvePost);
    req.on('error', reject);
    pipeline(createReadStream(path, { highWaterMark: 256 * 1024 }), req).catch(reject);
  });
  if (res.statusCode !== 200) {
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    throw new Error(`POST /v1/validate answered ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8')}`);
  }
  let bytes = 0;
  let listings = 0;
  let tail: Buffer = Buffer.alloc(0);
  for await (const chunk of res as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    const data = tail.length ? Buffer.concat([tail, chunk]) : chunk;
    for (let at = data.indexOf(MARKER); at >= 0; at = data.indexOf(MARKER, at + MARKER.length)) listings += 1;
    tail = Buffer.from(data.subarray(-(MARKER.length - 1))); // shorter than the marker, so no preview is counted twice
  }
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, bytes, listings };
}

/**
 * The feed through POST /v1/validate of a service process (every preview kept), ROUNDS times after
 * a warm-up run of the small feed: each round's seconds, the answer's size and listings, and the
 * server's RSS growth over its idle RSS (the highest of any round).
 */
async function overHttp(
  path: string,
  warmUpPath: string,
): Promise<{ seconds: number[]; bytes: number; listings: number; rssGrowthMb: number; growthByRound: number[] }> {
  const port = await freePort();
  const child = await startRole(
    'main.js',
    {
      PORT: String(port),
      DATABASE_URL,
      LOG_LEVEL: 'info',
      VALIDATE_MAX_PREVIEWS: '10000000',
      VALIDATE_MAX_ISSUES: '10000000',
      FEED_MAX_BYTES: String(1 << 30),
    },
    '"listening"',
  );
  try {
    const url = `http://127.0.0.1:${port}`;
    // A small dry run first: what the first one loads (the gazetteer, compiled schemas) is not the feed's.
    const warm = await postFeed(url, warmUpPath);
    if (warm.listings !== WARM_UP_LISTINGS) throw new Error(`the warm-up dry run gave ${warm.listings} previews`);
    await new Promise((r) => setTimeout(r, 1000));
    const idle = memoryOf(child.pid!).rss;
    let peak = idle;
    const timer = setInterval(() => (peak = Math.max(peak, memoryOf(child.pid!).rss)), 20);
    const runs: Awaited<ReturnType<typeof postFeed>>[] = [];
    /** The server's RSS growth by the end of each round: a leak would keep it rising. */
    const growthByRound: number[] = [];
    for (let r = 0; r < ROUNDS; r += 1) {
      runs.push(await postFeed(url, path));
      growthByRound.push(peak - idle);
    }
    clearInterval(timer);
    if (runs.some((run) => run.listings !== runs[0].listings))
      throw new Error(`the rounds counted different previews: ${runs.map((run) => run.listings).join(', ')}`);
    return { seconds: runs.map((run) => run.seconds), bytes: runs[0].bytes, listings: runs[0].listings, rssGrowthMb: peak - idle, growthByRound };
  } finally {
    await stopRole(child);
  }
}

/** Rounds of the stage timings over the warm-up feed (fresh trees each round). */
const STAGE_ROUNDS = 5;

/**
 * Where a one-thread dry run's time goes beyond the reader: the warm-up feed's listings read (their
 * element trees built) and held, then, timed apart, every listing mapped from its tree, and every
 * mapped listing applied as new and validated as the dry run does (no content hash). Microseconds
 * per listing, the means of STAGE_ROUNDS rounds, each over newly read trees.
 */
async function stageCosts(warmUpPath: string): Promise<{ mapUs: number; applyUs: number }> {
  let mapNs = 0;
  let applyNs = 0;
  let listings = 0;
  for (let r = 0; r < STAGE_ROUNDS; r += 1) {
    const items: FeedListing[] = [];
    for await (const batch of readReaxmlHere(decodeXmlBytes(readFeedFile(warmUpPath)), CONTEXT, [])) items.push(...batch);
    const mapStart = process.hrtime.bigint();
    for (const item of items) item.delta();
    const applyStart = process.hrtime.bigint();
    for (const item of items) dryRunOutcome(item, false);
    applyNs += Number(process.hrtime.bigint() - applyStart);
    mapNs += Number(applyStart - mapStart);
    listings += items.length;
  }
  return { mapUs: mapNs / listings / 1000, applyUs: applyNs / listings / 1000 };
}

/**
 * The peer beside the pipeline, from the same rounds: its rate, and one thread's and the reading
 * threads' rates over it (targets 2x and 3x, issue 64), overall and per round.
 */
function reportPeer(runs: PeerRun[], rounds: Record<'pipeline' | 'threads', Measured<number>>[], mb: number): void {
  const counted = runs.map((run) => run.listings).filter((n) => n !== null);
  if (counted.some((n) => n !== LISTINGS)) throw new Error(`expected ${LISTINGS} listings, the peer printed ${counted.join(', ')}`);
  const sum = (values: number[]) => values.reduce((n, v) => n + v, 0);
  const peer = sum(runs.map((run) => run.seconds)) / runs.length;
  const one = sum(rounds.map((r) => r.pipeline.seconds)) / rounds.length;
  const two = sum(rounds.map((r) => r.threads.seconds)) / rounds.length;
  const met = (ratio: number, target: number) => `(target >= ${target.toFixed(1)}) ${ratio >= target ? 'MET' : 'NOT MET'}`;
  console.log(
    `${'peer (BENCH_PEER_CMD)'.padEnd(22)} ${(LISTINGS / peer).toFixed(0).padStart(8)} listings/s ${(mb / peer).toFixed(1).padStart(7)} MB/s  ${peer.toFixed(2)} s  (its own process, wall clock; ${counted.length ? 'listings checked' : 'listings not printed'})`,
  );
  console.log(`pipeline, one thread / peer: ${(peer / one).toFixed(2)} ${met(peer / one, 2)}`);
  console.log(`  per round: ${rounds.map((r, i) => (runs[i].seconds / r.pipeline.seconds).toFixed(2)).join(', ')}`);
  console.log(`pipeline on ${THREADS} reading threads / peer: ${(peer / two).toFixed(2)} ${met(peer / two, 3)}`);
  console.log(`  per round: ${rounds.map((r, i) => (runs[i].seconds / r.threads.seconds).toFixed(2)).join(', ')}`);
  // CPU time moves less than wall clock with other work on the machine: listings per CPU second, one thread against the peer.
  const peerCpu = runs.map((run) => run.cpuSeconds);
  if (peerCpu.some((c) => c === null)) return;
  const oneCpu = sum(rounds.map((r) => r.pipeline.cpuSeconds));
  const perCpu = sum(peerCpu as number[]) / oneCpu;
  console.log(
    `  per CPU second (the process's, its GC threads included; the peer's): pipeline, one thread ${((LISTINGS * rounds.length) / oneCpu).toFixed(0)} listings, peer ${((LISTINGS * runs.length) / sum(peerCpu as number[])).toFixed(0)}; ratio ${perCpu.toFixed(2)} (rounds ${rounds.map((r, i) => ((peerCpu[i] as number) / r.pipeline.cpuSeconds).toFixed(2)).join(', ')})`,
  );
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-validate-'));
  const path = join(dir, 'feed.xml');
  const warmUpPath = join(dir, 'warm-up.xml');
  try {
    await writeSyntheticFeed(path, LISTINGS);
    await writeSyntheticFeed(warmUpPath, WARM_UP_LISTINGS);
    const mb = statSync(path).size / 1e6;
    // The service loads a gazetteer once, when a listing first needs it; the feed is Australian.
    warmGazetteers({ world: false });
    const passes = {
      bare: (file: string) => bareSaxesPass(file),
      reader: (file: string) => readerPass(file, CONTEXT, false),
      pipeline: async (file: string) => (await validateFeed(decodeXmlBytes(readFeedFile(file)), CONTEXT, { keepPreviews: false })).counts.valid,
      threads: async (file: string) => {
        configureReadThreads(THREADS);
        try {
          return await passes.pipeline(file);
        } finally {
          configureReadThreads(0);
        }
      },
    };
    // The reading threads start (and warm up) only after the first round's pipeline, whose peak RSS
    // is the single-thread figure: memory the threads took is not all given back to the system.
    for (const pass of [passes.bare, passes.reader, passes.pipeline]) await pass(warmUpPath);
    if (PEER_CMD) await runPeer(PEER_CMD, warmUpPath);
    const rounds: Record<keyof typeof passes, Measured<number>>[] = [];
    const peerRuns: PeerRun[] = [];
    for (let r = 0; r < ROUNDS; r += 1) {
      const bare = await measure(() => passes.bare(path));
      const reader = await measure(() => passes.reader(path));
      const pipeline = await measure(() => passes.pipeline(path));
      if (r === 0) await passes.threads(warmUpPath);
      rounds.push({ bare, reader, pipeline, threads: await measure(() => passes.threads(path)) });
      if (PEER_CMD) peerRuns.push(await runPeer(PEER_CMD, path));
    }
    const mean = (name: keyof typeof passes) => {
      const counted = rounds.map((r) => r[name].value);
      if (counted.some((n) => n !== LISTINGS)) throw new Error(`expected ${LISTINGS} listings, the ${name} pass counted ${counted.join(', ')}`);
      // Peak RSS: a one-thread pass's in the first round (the threads had not started), the threaded pass's highest.
      const peakMb = name === 'threads' ? Math.max(...rounds.map((r) => r[name].peakMb)) : rounds[0][name].peakMb;
      return { seconds: rounds.reduce((n, r) => n + r[name].seconds, 0) / ROUNDS, peakMb };
    };
    const [bare, reader, pipeline, threaded] = [mean('bare'), mean('reader'), mean('pipeline'), mean('threads')];
    await closeReadThreads();
    const stages = await stageCosts(warmUpPath);
    const httpRuns = await overHttp(path, warmUpPath);
    if (httpRuns.listings !== LISTINGS) throw new Error(`expected ${LISTINGS} previews over HTTP, counted ${httpRuns.listings}`);
    const http = { ...httpRuns, seconds: httpRuns.seconds.reduce((n, s) => n + s, 0) / ROUNDS };
    const ratio = reader.seconds / pipeline.seconds;
    const httpRatio = pipeline.seconds / http.seconds;
    const row = (name: string, m: { seconds: number; peakMb: number }) =>
      `${name.padEnd(22)} ${(LISTINGS / m.seconds).toFixed(0).padStart(8)} listings/s ${(mb / m.seconds).toFixed(1).padStart(7)} MB/s  ${m.seconds.toFixed(2)} s  peak RSS ${m.peakMb.toFixed(0)} MB`;
    console.log(`feed: ${LISTINGS} listings, ${mb.toFixed(1)} MB; after a ${WARM_UP_LISTINGS}-listing warm-up, means of ${ROUNDS} rounds taking turns`);
    console.log(row('bare saxes (context)', bare));
    console.log(row('reader alone (ceiling)', reader));
    console.log(row('pipeline', pipeline));
    console.log(row(`pipeline, ${THREADS} threads`, threaded));
    console.log(
      `${'over HTTP, all previews'.padEnd(22)} ${(LISTINGS / http.seconds).toFixed(0).padStart(8)} listings/s ${(mb / http.seconds).toFixed(1).padStart(7)} MB/s  ${http.seconds.toFixed(2)} s  answer ${(http.bytes / 1e6).toFixed(0)} MB, server RSS +${http.rssGrowthMb.toFixed(0)} MB`,
    );
    console.log(`pipeline / reader alone: ${ratio.toFixed(2)} (target >= 0.60) ${ratio >= 0.6 ? 'MET' : 'NOT MET'}`);
    console.log(`  per round: ${rounds.map((r) => (r.reader.seconds / r.pipeline.seconds).toFixed(2)).join(', ')}`);
    // What the target leaves for mapping and validation once the reader has run.
    const budget = ((reader.seconds / 0.6 - reader.seconds) / LISTINGS) * 1e6;
    const spent = ((pipeline.seconds - reader.seconds) / LISTINGS) * 1e6;
    console.log(
      `  context: reader alone / bare ${(bare.seconds / reader.seconds).toFixed(2)}; after reading, the target leaves ${budget.toFixed(0)} µs per listing for mapping and validation; they take ${spent.toFixed(0)} µs`,
    );
    // Against a bare saxes pass: twice and three times the fastest PHP REAXML parser measured beside it.
    const perListing = (seconds: number) => (seconds / LISTINGS) * 1e6;
    const ofBare = bare.seconds / pipeline.seconds;
    console.log(`pipeline / bare saxes: ${ofBare.toFixed(2)} (target >= 0.82) ${ofBare >= 0.82 ? 'MET' : 'NOT MET'}`);
    const beyondBare = perListing(bare.seconds / 0.82 - bare.seconds);
    console.log(
      `  bare saxes takes ${perListing(bare.seconds).toFixed(1)} µs per listing, and the target leaves ${beyondBare.toFixed(1)} µs beyond it for all the rest; the reader alone (element trees built) takes ${perListing(reader.seconds - bare.seconds).toFixed(1)} µs more than bare saxes; measured apart over trees already read (${WARM_UP_LISTINGS} listings, ${STAGE_ROUNDS} rounds), mapping takes ${stages.mapUs.toFixed(1)} µs and applying and validating ${stages.applyUs.toFixed(1)} µs`,
    );
    const threadsOfBare = bare.seconds / threaded.seconds;
    console.log(
      `pipeline on ${THREADS} reading threads / bare saxes: ${threadsOfBare.toFixed(2)} (target >= 1.25) ${threadsOfBare >= 1.25 ? 'MET' : 'NOT MET'}`,
    );
    const threadRatio = reader.seconds / threaded.seconds;
    console.log(
      `pipeline on ${THREADS} reading threads / reader alone: ${threadRatio.toFixed(2)} (target >= 1.0 on 2 cores) ${threadRatio >= 1 ? 'MET' : 'NOT MET'}`,
    );
    console.log(`  per round: ${rounds.map((r) => (r.reader.seconds / r.threads.seconds).toFixed(2)).join(', ')}`);
    console.log(`over HTTP / in-process pipeline: ${httpRatio.toFixed(2)} (target >= 0.50) ${httpRatio >= 0.5 ? 'MET' : 'NOT MET'}`);
    console.log(`  HTTP rounds: ${httpRuns.seconds.map((s) => s.toFixed(2)).join(', ')} s`);
    const growthNote =
      mb >= 95 ? `(target < 150 MB for a 100 MB feed) ${http.rssGrowthMb < 150 ? 'MET' : 'NOT MET'}` : '(run with 50000 listings for the 100 MB target)';
    console.log(`server RSS growth over HTTP: ${http.rssGrowthMb.toFixed(0)} MB ${growthNote}`);
    console.log(`  highest growth by the end of each round: ${http.growthByRound.map((g) => g.toFixed(0)).join(', ')} MB`);
    const singlePeak = rounds[0].pipeline.peakMb;
    const rssNote = mb >= 95 ? `(target < 300 MB on a 100 MB feed) ${singlePeak < 300 ? 'MET' : 'NOT MET'}` : '(run with 50000 listings for the 100 MB target)';
    console.log(`pipeline peak RSS (first round, before any reading thread started): ${singlePeak.toFixed(0)} MB ${rssNote}`);
    console.log(`  on ${THREADS} reading threads: ${threaded.peakMb.toFixed(0)} MB (the process, threads included)`);
    if (PEER_CMD) reportPeer(peerRuns, rounds, mb);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
