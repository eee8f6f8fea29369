import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { SaxesParser } from 'saxes';
import { storeFeedEvent } from '../db/feed-bodies.js';
import type { Db } from '../db/knex.js';
import { decodeXmlBytes } from '../pipeline/decode.js';
import { readReaxmlHere } from '../pipeline/reaxml/listing-reader.js';
import type { FeedContext } from '../pipeline/types.js';

const SUBURBS = [
  ['RICHMOND', 'VIC', '3121'],
  ['BONDI', 'NSW', '2026'],
  ['FORTITUDE VALLEY', 'QLD', '4006'],
  ['FREMANTLE', 'WA', '6160'],
  ['GLENELG', 'SA', '5045'],
];

/** One realistic residential listing (~2.2 KB): agent, price, address, features, 4 photos, a floorplan. */
export function syntheticListing(i: number, variant = 0): string {
  const [suburb, state, postcode] = SUBURBS[i % SUBURBS.length];
  const imgs = ['m', 'a', 'b', 'c']
    .map((id) => `<img id="${id}" modTime="2024-03-01-10:00:00" url="https://img.example.com/${i}/${id}.jpg" format="jpg"/>`)
    .join('');
  const day = String(1 + variant).padStart(2, '0');
  return `<residential modTime="2024-03-${day}-10:${String(i % 60).padStart(2, '0')}:00" status="current">
<agentID>OFFICE${i % 500}</agentID><uniqueID>LISTING-${i}</uniqueID><authority value="auction"/><underOffer value="no"/>
<listingAgent id="1"><name>Agent ${i % 97}</name><telephone type="BH">03 9000 ${String(i % 10000).padStart(4, '0')}</telephone><telephone type="mobile">0400 000 000</telephone><email>agent${i % 97}@example.com</email></listingAgent>
<price display="yes">${500000 + (i % 1000) * 1000 + variant * 5000}</price><priceView>Offers over $${500 + (i % 1000)},000</priceView>
<address display="yes"><subNumber>${i % 9}</subNumber><streetNumber>${i % 300}</streetNumber><street>Main &amp; High Road</street><suburb>${suburb}</suburb><state>${state}</state><postcode>${postcode}</postcode><country>AUS</country></address>
<category name="House"/><headline>Family home number ${i} close to everything</headline>
<description><![CDATA[${'Light-filled rooms, a renovated kitchen and a north-facing garden. '.repeat(8)}]]></description>
<features><bedrooms>${1 + (i % 5)}</bedrooms><bathrooms>${1 + (i % 3)}</bathrooms><garages>2</garages><airConditioning>yes</airConditioning><pool>no</pool><heating type="gas"/></features>
<landDetails><area unit="squareMeter">${300 + (i % 700)}</area></landDetails><buildingDetails><area unit="square">${20 + (i % 30)}</area></buildingDetails>
<inspectionTimes><inspection>21-Mar-2024 11:00am to 11:30am</inspection></inspectionTimes>
<images>${imgs}</images><objects><floorplan id="1" url="https://img.example.com/${i}/f1.gif"/></objects>
</residential>\n`;
}

/** The offices the synthetic feed uses (OFFICE0..OFFICE499). */
export const SYNTHETIC_OFFICES = Array.from({ length: 500 }, (_, i) => `OFFICE${i}`);

/** Writes a propertyList of n listings; `changed(i)` picks listings written as a changed, newer version. */
export async function writeSyntheticFeed(path: string, n: number, changed: (i: number) => boolean = () => false): Promise<void> {
  const out = createWriteStream(path);
  out.write('<?xml version="1.0" encoding="utf-8"?>\n<propertyList date="2024-03-01-10:00:00">\n');
  for (let i = 0; i < n; i += 1) if (!out.write(syntheticListing(i, changed(i) ? 1 : 0))) await once(out, 'drain');
  out.end('</propertyList>\n');
  await once(out, 'finish');
}

export const readFeedFile = (path: string) => createReadStream(path, { highWaterMark: 64 * 1024 });

/** The ceiling: saxes tokenising the file with a no-op-ish handler; returns listings seen. */
export async function bareSaxesPass(path: string): Promise<number> {
  let count = 0;
  const parser = new SaxesParser({ position: false });
  parser.on('opentag', (tag) => {
    if (tag.name === 'residential') count += 1;
  });
  for await (const chunk of readFeedFile(path).setEncoding('utf8')) parser.write(chunk as string);
  parser.close();
  return count;
}

/**
 * The pipeline's reading stage alone: the REAXML reader over the file on this thread (every
 * listing's element tree built, nothing mapped), whatever reading threads are configured.
 * fingerprints: also each listing's source fingerprint, as ingestion reads an unchanged feed,
 * without the database. Returns listings read.
 */
export async function readerPass(path: string, context: FeedContext, fingerprints: boolean): Promise<number> {
  let count = 0;
  for await (const batch of readReaxmlHere(decodeXmlBytes(readFeedFile(path)), context, [])) {
    for (const item of batch) {
      count += 1;
      if (fingerprints) item.sourceHash();
    }
  }
  return count;
}

export interface Measured<T> {
  seconds: number;
  /** The process's CPU time over the same span (user and system, every thread of it). */
  cpuSeconds: number;
  peakMb: number;
  value: T;
}

/**
 * Runs fn while sampling RSS; returns seconds and the peak RSS in MB. No forced GC beforehand: on
 * Node 24, after a few explicit full collections everything in the process ran about four times
 * slower (the reader alone went from 1.0 s to 4.5 s on 50,000 listings), which made the rounds of
 * these benches disagree by that much.
 */
export async function measure<T>(fn: () => Promise<T>): Promise<Measured<T>> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const value = await fn();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const used = process.cpuUsage(cpu);
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6, peakMb: peak / 1e6, value };
}

/** The context the synthetic feeds are read with. */
export const SYNTHETIC_CONTEXT = { currency: 'AUD', defaultCountry: 'AU', sourceLocale: 'en-AU' };

/** Stores a synthetic feed's body as an incremental API feed event of the synthetic offices (the web side's work) and returns its id. */
export async function storeSyntheticFeed(db: Db, body: AsyncIterable<Buffer>): Promise<string> {
  const event = await storeFeedEvent(
    db,
    {
      source: 'api',
      keyId: null,
      officeScope: SYNTHETIC_OFFICES,
      alertEmail: null,
      format: 'reaxml',
      mode: 'incremental',
      context: SYNTHETIC_CONTEXT,
      bodyKind: 'bytes',
    },
    body,
  );
  return event.id;
}
