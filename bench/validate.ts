/**
 * bench/validate: the REAXML pipeline (parse, map, validate, hash; previews not kept) against a
 * bare saxes pass over the same bytes, in one process. Targets (issue 2): pipeline throughput at
 * least 0.6 of the bare pass; peak RSS under 300 MB on a 100 MB feed. For context it also times
 * the pipeline's reader alone (saxes building each listing's element tree, nothing mapped) and
 * prints the time per listing the target leaves for everything after reading.
 *
 *   npm run bench:validate                 # 50,000 listings (~110 MB)
 *   npm run bench:validate -- 20000        # a quicker run
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeXmlBytes } from '../pipeline/decode.js';
import { warmGazetteers } from '../pipeline/geocode.js';
import { validateFeed } from '../pipeline/validate-feed.js';
import { bareSaxesPass, measure, readerPass, readFeedFile, writeSyntheticFeed } from './synthetic-feed.js';

const LISTINGS = Number(process.argv[2] ?? 50000);
const CONTEXT = { currency: 'AUD', defaultCountry: 'AU', sourceLocale: 'en-AU' };

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
    const ratio = bare.seconds / pipeline.seconds;
    const row = (name: string, m: { seconds: number; peakMb: number }) =>
      `${name.padEnd(22)} ${(LISTINGS / m.seconds).toFixed(0).padStart(8)} listings/s ${(mb / m.seconds).toFixed(1).padStart(7)} MB/s  ${m.seconds.toFixed(2)} s  peak RSS ${m.peakMb.toFixed(0)} MB`;
    console.log(`feed: ${LISTINGS} listings, ${mb.toFixed(1)} MB`);
    console.log(row('bare saxes (ceiling)', bare));
    console.log(row('reader alone (context)', reader));
    console.log(row('pipeline', pipeline));
    console.log(`throughput ratio pipeline/bare: ${ratio.toFixed(2)} (target >= 0.60) ${ratio >= 0.6 ? 'MET' : 'NOT MET'}`);
    // What the target leaves for mapping, validation and hashing once the reader has run.
    const budget = ((bare.seconds / 0.6 - reader.seconds) / LISTINGS) * 1e6;
    const spent = ((pipeline.seconds - reader.seconds) / LISTINGS) * 1e6;
    console.log(
      `reader alone / bare: ${(bare.seconds / reader.seconds).toFixed(2)}; after reading, the target leaves ${budget.toFixed(0)} µs per listing for mapping, validation and hashing; they take ${spent.toFixed(0)} µs`,
    );
    const rssNote =
      mb >= 95 ? `(target < 300 MB on a 100 MB feed) ${pipeline.peakMb < 300 ? 'MET' : 'NOT MET'}` : '(run with 50000 listings for the 100 MB target)';
    console.log(`pipeline peak RSS: ${pipeline.peakMb.toFixed(0)} MB ${rssNote}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
