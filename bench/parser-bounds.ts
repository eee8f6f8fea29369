/**
 * bench/parser-bounds: how long each parser the service runs over feed or request text takes on the
 * worst input found for it (docs/security.md, Text the parsers read), at the longest text it reads
 * and on text far past that (100,000 characters, which it must refuse without reading). Each case
 * runs once to warm up, then BENCH_ROUNDS times (default 5); the median is printed, with the time
 * per character. Targets: a short field (email, date, number, URL, an OData filter) at its bound
 * within 10 ms, and refused past it within 1 ms; a description's markup (read up to 100,000
 * characters, cut past that) within 500 ms for each of its two readers, so one field holds its
 * process half a second at most even on this shared machine; a MediaHTML fragment (cut at 10,000)
 * within 50 ms; the JSON depth pass over a megabyte of a feed document within 50 ms.
 *
 *   npm run bench:parser-bounds
 */
import { JsonDepthGauge } from '../lib/json-depth.js';
import { parseFilter } from '../lib/odata-filter.js';
import { httpUrl, URL_MAX_CHARS } from '../lib/safe-url.js';
import { EMAIL_MAX_CHARS, singleMailbox } from '../pipeline/email-address.js';
import { ListingIssues } from '../pipeline/issues.js';
import { plainText, sanitizedHtml } from '../pipeline/listing-text.js';
import { DATE_MAX_CHARS, parseReaDate } from '../pipeline/reaxml/dates.js';
import { readUrl } from '../pipeline/reaxml/map-media.js';
import { embeddedVideoUrl, linkUrl, MEDIA_HTML_MAX_CHARS } from '../pipeline/reso/reso-links.js';
import { STREET_NUMBER_MAX_CHARS, splitStreetNumber } from '../pipeline/street-number.js';
import { TEXT_LIMITS } from '../pipeline/text-limits.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PAST = 100_000;
const FIELD_MS = 10;
const REFUSED_MS = 1;

/** `unit` repeated to exactly `length` characters. */
const repeat = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

interface Case {
  parser: string;
  input: string;
  /** The text for a length: the longest read, or far past it. */
  text: (length: number) => string;
  run: (text: string) => unknown;
  /** The longest text the parser reads. */
  bound: number;
  /** Its target at the bound (default FIELD_MS); past the bound, text it cuts has the same target, text it refuses REFUSED_MS. */
  targetMs?: number;
  cuts?: true;
}

const issues = () => new ListingIssues(0);
const DESCRIPTION_READ = 5 * TEXT_LIMITS.description;

const CASES: Case[] = [
  { parser: 'email', input: 'a, spaces, a', text: (n) => `a${' '.repeat(n - 2)}a`, run: singleMailbox, bound: EMAIL_MAX_CHARS },
  { parser: 'email', input: 'open comments', text: (n) => '('.repeat(n), run: singleMailbox, bound: EMAIL_MAX_CHARS },
  { parser: 'email', input: 'words of UTF-8', text: (n) => repeat('é ', n), run: singleMailbox, bound: EMAIL_MAX_CHARS },
  { parser: 'email', input: 'dotted quoted words', text: (n) => `${repeat('"a".', n - 11)}a@b.example`, run: singleMailbox, bound: EMAIL_MAX_CHARS },
  {
    parser: 'date',
    input: 'date, spaces, x',
    text: (n) => `2024-01-01 10:10${' '.repeat(n - 17)}x`,
    run: (t) => parseReaDate(t, 'Australia/Sydney'),
    bound: DATE_MAX_CHARS,
  },
  { parser: 'street number', input: 'lot, spaced digits', text: (n) => `lot ${repeat('1 ', n - 5)}x`, run: splitStreetNumber, bound: STREET_NUMBER_MAX_CHARS },
  { parser: 'URL (media, links)', input: 'dotted host', text: (n) => `http://${repeat('a.', n - 8)}1`, run: readUrl, bound: URL_MAX_CHARS },
  { parser: 'URL (site settings)', input: 'percent escapes', text: (n) => `http://a.example/${repeat('%zz', n - 17)}`, run: httpUrl, bound: URL_MAX_CHARS },
  {
    parser: 'URL without scheme',
    input: 'dotted host',
    text: (n) => `${repeat('a.', n - 1)}!`,
    run: (t) => linkUrl(t, 'VirtualTourURL', issues(), ''),
    bound: URL_MAX_CHARS,
  },
  {
    parser: 'MediaHTML',
    input: 'open tags',
    text: (n) => repeat('<a ', n),
    run: (t) => embeddedVideoUrl(t, issues(), ''),
    bound: MEDIA_HTML_MAX_CHARS,
    targetMs: 50,
    cuts: true,
  },
  {
    parser: 'description to text',
    input: 'nested <b>',
    text: (n) => repeat('<b>', n),
    run: (t) => plainText(t),
    bound: DESCRIPTION_READ,
    targetMs: 500,
    cuts: true,
  },
  {
    parser: 'description to text',
    input: '<p>a</p>',
    text: (n) => repeat('<p>a</p>', n),
    run: (t) => plainText(t),
    bound: DESCRIPTION_READ,
    targetMs: 500,
    cuts: true,
  },
  {
    parser: 'description to text',
    input: '<br>',
    text: (n) => repeat('<br>', n),
    run: (t) => plainText(t),
    bound: DESCRIPTION_READ,
    targetMs: 500,
    cuts: true,
  },
  {
    parser: 'description to text',
    input: 'nested lists',
    text: (n) => repeat('<ol><li>', n),
    run: (t) => plainText(t),
    bound: DESCRIPTION_READ,
    targetMs: 500,
    cuts: true,
  },
  { parser: 'description HTML', input: 'nested <b>', text: (n) => repeat('<b>', n), run: sanitizedHtml, bound: DESCRIPTION_READ, targetMs: 500, cuts: true },
  {
    parser: 'description HTML',
    input: 'nested lists',
    text: (n) => repeat('<ol><li>', n),
    run: sanitizedHtml,
    bound: DESCRIPTION_READ,
    targetMs: 500,
    cuts: true,
  },
  {
    parser: 'description HTML',
    input: 'links',
    text: (n) => repeat('<a href="http://x.example/">x</a>', n),
    run: sanitizedHtml,
    bound: DESCRIPTION_READ,
    targetMs: 500,
    cuts: true,
  },
  {
    parser: 'JSON depth',
    input: 'array of escaped strings',
    text: (n) => `[${repeat('"a\\"b",', n - 3)}1]`,
    run: (t) => new JsonDepthGauge().feed(t),
    bound: 1_000_000,
    targetMs: 50,
  },
  {
    parser: 'OData $filter',
    input: 'and chain',
    text: (n) => `${'A eq 1 and '.repeat(Math.floor((n - 6) / 11))}A eq 1`,
    run: (t) => parseFilter(t),
    bound: 8_000,
  },
  { parser: 'OData $filter', input: 'one long string', text: (n) => `A eq '${"''".repeat((n - 8) / 2)}'`, run: (t) => parseFilter(t), bound: 8_000 },
];

function median(run: () => void): number {
  run();
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

function safely(run: (text: string) => unknown, text: string): () => void {
  return () => {
    try {
      run(text);
    } catch (err) {
      // The OData parser refuses over-long text by throwing; anything else is a finding.
      if (!(err instanceof Error) || !/longer than|is empty/.test(err.message)) throw err;
    }
  };
}

const rows: string[][] = [['parser', 'input', 'at its bound', 'ms', 'µs/char', `${PAST.toLocaleString('en')} chars`, 'ms', 'ok']];
let failed = 0;
for (const c of CASES) {
  const at = c.text(c.bound);
  const past = c.text(Math.max(PAST, c.bound + 1));
  const atMs = median(safely(c.run, at));
  const pastMs = c.bound >= PAST ? Number.NaN : median(safely(c.run, past));
  const target = c.targetMs ?? FIELD_MS;
  const ok = atMs <= target && (Number.isNaN(pastMs) || pastMs <= (c.cuts ? target : REFUSED_MS));
  if (!ok) failed += 1;
  rows.push([
    c.parser,
    c.input,
    at.length.toLocaleString('en'),
    atMs.toFixed(2),
    ((atMs * 1000) / at.length).toFixed(2),
    Number.isNaN(pastMs) ? '' : past.length.toLocaleString('en'),
    Number.isNaN(pastMs) ? '' : pastMs.toFixed(3),
    ok ? 'yes' : 'NO',
  ]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const row of rows) console.log(row.map((cell, i) => (i >= 2 ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  '));
console.log(`\ntargets (see the top of bench/parser-bounds.ts): ${failed ? `${failed} case(s) missed` : 'all met'}`);
