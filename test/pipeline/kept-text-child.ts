/**
 * Run by kept-text.test.ts in a process of its own with --expose-gc: a dry run of a feed read on
 * this thread in 64 KB pieces, each listing carrying a warning; prints how much heap stays in use
 * while only the result's issues are kept, against the feed's size, as JSON. With the argument
 * own-times, each listing has a modTime of its own (as real exports do), which the date reader's
 * cache keeps beyond the feed.
 */
import { configureReadThreads } from '../../pipeline/reaxml/read-threads.js';
import { validateFeed } from '../../pipeline/validate-feed.js';

const LISTINGS = 2000;
const OWN_TIMES = process.argv[2] === 'own-times';
const two = (n: number) => String(n).padStart(2, '0');
/** The listing's modTime: one for all, or with own-times each its own (hour, minute and second from i). */
const modTime = (i: number) =>
  OWN_TIMES ? `2024-03-01-${two(i % 24)}:${two(Math.floor(i / 24) % 60)}:${two(Math.floor(i / 1440) % 60)}` : '2024-03-01-10:00:00';
const listing = (i: number) =>
  `<residential modTime="${modTime(i)}" status="current"><agentID>OFFICE1</agentID><uniqueID>KEPT-TEXT-LISTING-${i}</uniqueID>` +
  `<headline>Home ${i}</headline><description>${'A long description of rooms and gardens. '.repeat(200)}</description>` +
  `<price display="maybe">650000</price><address display="yes"><streetNumber>1</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address></residential>`;

/** The feed in independent 64 KB strings, as the decoder hands them over. */
function pieces(): string[] {
  const out: string[] = [];
  let piece = '<?xml version="1.0" encoding="utf-8"?><propertyList>';
  for (let i = 0; i < LISTINGS; i += 1) {
    piece += listing(i);
    while (piece.length >= 65536) {
      out.push(JSON.parse(JSON.stringify(piece.slice(0, 65536))));
      piece = piece.slice(65536);
    }
  }
  out.push(`${piece}</propertyList>`);
  return out;
}

const gc = (globalThis as unknown as { gc: () => void }).gc;
const context = { currency: 'AUD', defaultCountry: 'AU', sourceLocale: 'en-AU' };
configureReadThreads(0);
// What the first feed loads (the gazetteer, compiled code) is not the feed's.
await validateFeed(`<propertyList>${listing(0)}</propertyList>`, context, { keepPreviews: false });
gc();
const before = process.memoryUsage().heapUsed;
const text = pieces();
const feedBytes = text.reduce((n, p) => n + p.length, 0);
const result = await validateFeed(
  (async function* () {
    while (text.length > 0) yield text.shift()!;
  })(),
  context,
  { keepPreviews: false },
);
const issues = result.issues.filter((i) => i.uniqueId?.startsWith('KEPT-TEXT-LISTING-'));
gc();
const kept = process.memoryUsage().heapUsed - before;
console.log(JSON.stringify({ feedBytes, kept, issues: issues.length }));
