/**
 * bench/validate: the REAXML pipeline (parse, map, validate, hash; previews not kept) against a
 * bare saxes pass over the same bytes, in one process. Targets (issue 2): pipeline throughput at
 * least 0.6 of the bare pass; peak RSS under 300 MB on a 100 MB feed.
 *
 *   npm run bench:validate                 # 50,000 listings (~50 MB)
 *   npm run bench:validate -- 100000       # ~100 MB, for the memory target
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { SaxesParser } from 'saxes';
import { decodeXmlBytes } from '../pipeline/decode.js';
import { validateReaxmlFeed } from '../pipeline/reaxml/validate-reaxml-feed.js';

const LISTINGS = Number(process.argv[2] ?? 50000);
const SUBURBS = [['RICHMOND', 'VIC', '3121'], ['BONDI', 'NSW', '2026'], ['FORTITUDE VALLEY', 'QLD', '4006'], ['FREMANTLE', 'WA', '6160'], ['GLENELG', 'SA', '5045']];

function listing(i: number): string {
  const [suburb, state, postcode] = SUBURBS[i % SUBURBS.length];
  const imgs = ['m', 'a', 'b', 'c'].map((id) => `<img id="${id}" modTime="2024-03-01-10:00:00" url="https://img.example.com/${i}/${id}.jpg" format="jpg"/>`).join('');
  return `<residential modTime="2024-03-01-10:${String(i % 60).padStart(2, '0')}:00" status="current">
<agentID>OFFICE${i % 500}</agentID><uniqueID>LISTING-${i}</uniqueID><authority value="auction"/><underOffer value="no"/>
<listingAgent id="1"><name>Agent ${i % 97}</name><telephone type="BH">03 9000 ${String(i % 10000).padStart(4, '0')}</telephone><telephone type="mobile">0400 000 000</telephone><email>agent${i % 97}@example.com</email></listingAgent>
<price display="yes">${500000 + (i % 1000) * 1000}</price><priceView>Offers over $${500 + (i % 1000)},000</priceView>
<address display="yes"><subNumber>${i % 9}</subNumber><streetNumber>${i % 300}</streetNumber><street>Main &amp; High Road</street><suburb>${suburb}</suburb><state>${state}</state><postcode>${postcode}</postcode><country>AUS</country></address>
<category name="House"/><headline>Family home number ${i} close to everything</headline>
<description><![CDATA[${'Light-filled rooms, a renovated kitchen and a north-facing garden. '.repeat(8)}]]></description>
<features><bedrooms>${1 + (i % 5)}</bedrooms><bathrooms>${1 + (i % 3)}</bathrooms><garages>2</garages><airConditioning>yes</airConditioning><pool>no</pool><heating type="gas"/></features>
<landDetails><area unit="squareMeter">${300 + (i % 700)}</area></landDetails><buildingDetails><area unit="square">${20 + (i % 30)}</area></buildingDetails>
<inspectionTimes><inspection>21-Mar-2024 11:00am to 11:30am</inspection></inspectionTimes>
<images>${imgs}</images><objects><floorplan id="1" url="https://img.example.com/${i}/f1.gif"/></objects>
</residential>\n`;
}

async function writeFeed(path: string): Promise<void> {
  const out = createWriteStream(path);
  out.write('<?xml version="1.0" encoding="utf-8"?>\n<propertyList date="2024-03-01-10:00:00">\n');
  for (let i = 0; i < LISTINGS; i += 1) if (!out.write(listing(i))) await once(out, 'drain');
  out.end('</propertyList>\n');
  await once(out, 'finish');
}

/** Runs fn while sampling RSS; returns seconds and the peak RSS in MB. */
async function measure(fn: () => Promise<void>): Promise<{ seconds: number; peakMb: number }> {
  (globalThis as any).gc?.();
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const start = process.hrtime.bigint();
  await fn();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { seconds, peakMb: peak / 1e6 };
}

const read = (path: string) => createReadStream(path, { highWaterMark: 64 * 1024 });

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-validate-'));
  const path = join(dir, 'feed.xml');
  try {
    await writeFeed(path);
    const mb = statSync(path).size / 1e6;
    let bareCount = 0;
    const bare = await measure(async () => {
      const parser = new SaxesParser({ position: false });
      parser.on('opentag', (tag) => { if (tag.name === 'residential') bareCount += 1; });
      for await (const chunk of read(path).setEncoding('utf8')) parser.write(chunk as string);
      parser.close();
    });
    let counts = { parsed: 0, valid: 0, invalid: 0 };
    const pipeline = await measure(async () => {
      const result = await validateReaxmlFeed(decodeXmlBytes(read(path)), { currency: 'AUD', defaultCountry: 'AU', sourceLocale: 'en-AU' }, { keepPreviews: false });
      counts = result.counts;
    });
    if (bareCount !== LISTINGS || counts.valid !== LISTINGS) throw new Error(`expected ${LISTINGS} listings, bare saw ${bareCount}, pipeline ${JSON.stringify(counts)}`);
    const ratio = bare.seconds / pipeline.seconds;
    const row = (name: string, m: { seconds: number; peakMb: number }) =>
      `${name.padEnd(22)} ${(LISTINGS / m.seconds).toFixed(0).padStart(8)} listings/s ${(mb / m.seconds).toFixed(1).padStart(7)} MB/s  ${m.seconds.toFixed(2)} s  peak RSS ${m.peakMb.toFixed(0)} MB`;
    console.log(`feed: ${LISTINGS} listings, ${mb.toFixed(1)} MB`);
    console.log(row('bare saxes (ceiling)', bare));
    console.log(row('pipeline', pipeline));
    console.log(`throughput ratio pipeline/bare: ${ratio.toFixed(2)} (target >= 0.60) ${ratio >= 0.6 ? 'MET' : 'NOT MET'}`);
    const rssNote = mb >= 95 ? `(target < 300 MB on a 100 MB feed) ${pipeline.peakMb < 300 ? 'MET' : 'NOT MET'}` : '(run with 100000 listings for the 100 MB target)';
    console.log(`pipeline peak RSS: ${pipeline.peakMb.toFixed(0)} MB ${rssNote}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
