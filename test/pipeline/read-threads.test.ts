import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { chunkString } from '../../pipeline/decode.js';
import { type KnownFingerprints, knownFingerprints } from '../../pipeline/known-fingerprints.js';
import { readFeed } from '../../pipeline/read-feed.js';
import { closeReadThreads, configureReadThreads } from '../../pipeline/reaxml/read-threads.js';
import { FeedSplitter } from '../../pipeline/reaxml/split-feed.js';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { AU_CONTEXT } from '../helpers.js';
import { corpusDigest, GOLDENS_PATH, mappingCorpus } from './mapping-corpus.js';
import { mappingOutputs } from './mapping-outputs.js';
import { random, variedFeed, variedListing } from './varied-listings.js';

/** The varied listings from..to (exclusive), with no propertyList around them. */
const listingsText = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => variedListing(from + i)).join('');

/** What the feed maps to read on this thread (too small to split), and read in pieces on two worker threads. */
async function bothWays(text: string, pieceSize: number, stuckAfter?: number): Promise<{ here: string[]; threads: string[] }> {
  configureReadThreads(2, { splitFrom: Infinity });
  const here = await mappingOutputs('reaxml', text, AU_CONTEXT);
  configureReadThreads(2, { splitFrom: 0, pieceSize, ...(stuckAfter ? { stuckAfter } : {}) });
  return { here, threads: await mappingOutputs('reaxml', text, AU_CONTEXT) };
}

/**
 * Large REAXML feeds are read on worker threads in pieces cut between the root's children. What
 * they map to must not change in any way: the same records, fingerprints, hashes and issues, in
 * the same order, and for a feed that is not well-formed the same first error at the same line
 * and column, with the same listings read before it.
 */
describe('reading a REAXML feed on worker threads', function () {
  this.timeout(180000);
  after(async () => {
    configureReadThreads(0);
    await closeReadThreads();
  });

  it('maps every corpus entry to exactly what the goldens record, in pieces of one listing and of 4 KB', async () => {
    const goldens = JSON.parse(readFileSync(GOLDENS_PATH, 'utf8')) as Record<string, string>;
    const corpus = mappingCorpus().filter((e) => e.format === 'reaxml');
    for (const pieceSize of [1, 4096]) {
      configureReadThreads(2, { splitFrom: 0, pieceSize });
      const differing: string[] = [];
      for (const entry of corpus) if ((await corpusDigest(entry)).digest !== goldens[entry.name]) differing.push(entry.name);
      expect(differing, `pieces of ${pieceSize}`).to.deep.equal([]);
    }
    configureReadThreads(0);
  });

  it('gives the same result as one reader for feeds damaged at random: same error, line and column, same listings before it', async () => {
    // Half on one line, so that errors fall on the line a piece starts on, too.
    const bases = [variedFeed(0, 12), variedFeed(12, 24).replace(/\n/g, '')];
    const marks = [
      '<',
      '>',
      '/',
      '"',
      "'",
      '&',
      '!',
      '-',
      '[',
      ']',
      '?',
      '=',
      'x',
      ' ',
      '\n',
      '\r',
      '\u0001',
      '<!--',
      '-->',
      '<![CDATA[',
      ']]>',
      '</residential>',
      '<land>',
      '/>',
    ];
    const r = random(7);
    let errors = 0;
    for (let n = 0; n < 400; n += 1) {
      let text = bases[n % 2];
      for (let k = 1 + Math.floor(r() * 3); k > 0; k -= 1) {
        const at = Math.floor(r() * text.length);
        const cut = r() < 0.5 ? Math.floor(r() * 4) : 0;
        text = text.slice(0, at) + marks[Math.floor(r() * marks.length)] + text.slice(at + cut);
      }
      const { here, threads } = await bothWays(text, r() < 0.5 ? 1 : 600);
      if (here.some((line) => line.startsWith('error '))) errors += 1;
      expect(threads, `damaged feed ${n}`).to.deep.equal(here);
    }
    expect(errors).to.be.greaterThan(100);
  });

  it('reads feeds it does not split (another root, XML 1.1, an internal DTD subset, a head past 256 KB) on one reader, with the same result', async () => {
    const listing = listingsText(0, 3);
    for (const text of [
      `<residential modTime="2024-03-01-10:00:00" status="current"><uniqueID>A</uniqueID></residential>`,
      `<?xml version="1.1"?><propertyList>${listing}</propertyList>`,
      `<!DOCTYPE propertyList [<!ELEMENT propertyList ANY>]><propertyList>${listing}</propertyList>`,
      `<!DOCTYPE propertyList SYSTEM "http://reaxml.realestate.com.au/propertyList.dtd">\n<!-- export -->\n<?pi x?>\n<propertyList username="u" password="p">${listing}</propertyList>`,
      `\uFEFF<propertyList>${listing}</propertyList>trailing`,
      `<propertyList>${listing}`,
      `<propertyList>${listing}</propertylist>`,
      `<propertyList><companyName>x</companyName><unknown/></propertyList>`,
      '',
      '   ',
      `<propertyList attr="a > b">${listing}</propertyList>`,
      `<!--${'x'.repeat(300_000)}-->\n<propertyList>${listing}</propertyList>`,
    ]) {
      const { here, threads } = await bothWays(text, 1);
      expect(threads, text).to.deep.equal(here);
    }
  });

  it('reads a feed on the threads whatever size its chunks are (a first chunk past 256 KB, as a stored body is read back in 1 MB chunks)', async () => {
    const text = variedFeed(0, 440);
    // Well past 256 KB, so a 1 MB chunk brings the whole feed at once.
    expect(text.length).to.be.greaterThan(600_000);
    for (const chunkSize of [16 * 1024, 1 << 20]) {
      configureReadThreads(2, { splitFrom: 0, pieceSize: 4096 });
      const onThreads: boolean[] = [];
      const chunks = async function* () {
        yield* chunkString(text, chunkSize);
      };
      for await (const batch of readFeed('reaxml', chunks(), AU_CONTEXT, [], { dryRun: { hash: false } })) {
        // A listing read on a thread arrives already applied as a dry run would apply it.
        for (const item of batch.listings) onThreads.push(item.dryRun !== undefined);
      }
      expect(onThreads.length, `chunks of ${chunkSize}`).to.be.greaterThan(100);
      expect(onThreads.every(Boolean), `every listing read on a thread, chunks of ${chunkSize}`).to.equal(true);
    }
  });

  it('leaves listings whose sources the store has unmapped on the threads, and maps them as one reader would when asked', async () => {
    /** Each listing as ingestion sees it: fingerprint, identity, maybe a warning of its own, then (for every other one, as if the store had changed) the delta; and the issues. */
    const listingsOf = async (text: string, known?: () => Promise<KnownFingerprints>) => {
      const lines: string[] = [];
      try {
        for await (const batch of readFeed('reaxml', text, AU_CONTEXT, [], { knownSources: known })) {
          for (const item of batch.listings) {
            // As ingestion warns of a repeated key before it maps the listing.
            if (item.index % 3 === 0) item.issues.warning('added_before_mapping', 'a warning added after reading', item.path);
            const mapped = item.index % 2 === 0 ? JSON.stringify(item.delta()) : '-';
            lines.push(`${item.index} ${item.path} ${item.sourceHash()} ${JSON.stringify(item.identity)} ${mapped} ${JSON.stringify(item.issues.list)}`);
          }
        }
      } catch (err) {
        lines.push(`error ${(err as Error).message}`);
      }
      return lines;
    };
    const corpus = mappingCorpus().filter((e) => e.format === 'reaxml');
    // Sources with attributes that need escaping to be read again as they were.
    const awkward = variedFeed(0, 4).replace(/<residential /g, '<residential note="a &amp; b &lt; &quot;c&quot; &#9;tab &#10;line \'q\'" ');
    // Characters XML does not allow, removed as they are read: inside listings (whose sources then
    // cross as text) and between them (the sources after are then further on in the piece's text).
    let n = 0;
    const stripped = variedFeed(0, 12)
      .replace(/<\/headline>/g, () => ((n += 1) % 3 === 0 ? '\u0001</headline>' : '</headline>'))
      .replace(/(<\/(?:residential|rental|land|rural|commercial|holidayRental|business)>)/g, (end) => ((n += 1) % 2 === 0 ? `${end}\u0002\u0003` : end));
    expect(stripped).to.include('\u0001').and.include('\u0002');
    for (const text of [...corpus.map((e) => e.text()), awkward, stripped]) {
      configureReadThreads(2, { splitFrom: Infinity });
      const here = await listingsOf(text);
      const fingerprints = here.map((line) => line.split(' ')[2]).filter((f) => f?.startsWith('reaxml'));
      configureReadThreads(2, { splitFrom: 0, pieceSize: 1 });
      // Every source known, half of them, none.
      for (const share of [1, 2, 0]) {
        const known = share === 0 ? [] : fingerprints.filter((_, i) => i % share === 0);
        const threads = await listingsOf(text, async () => knownFingerprints(known));
        const differs = threads.findIndex((line, i) => line !== here[i]);
        expect(threads[differs], `with ${known.length} of ${fingerprints.length} sources known`).to.equal(here[differs]);
        expect(threads.length).to.equal(here.length);
      }
    }
  });

  it('dry runs give the same result on threads, previews kept or not', async () => {
    const corpus = mappingCorpus().filter((e) => e.format === 'reaxml');
    for (const keepPreviews of [true, false]) {
      for (const entry of corpus) {
        const text = entry.text();
        configureReadThreads(2, { splitFrom: Infinity });
        const here = await validateFeed(text, AU_CONTEXT, { keepPreviews }).catch((err: Error) => err.message);
        configureReadThreads(2, { splitFrom: 0, pieceSize: 1 });
        const threads = await validateFeed(text, AU_CONTEXT, { keepPreviews }).catch((err: Error) => err.message);
        expect(JSON.stringify(threads), entry.name).to.equal(JSON.stringify(here));
      }
    }
  });

  it('reads on one reader from where a cut went wrong (an end tag in CDATA, a comment or a namesake child, or written with a space)', async () => {
    const listings = listingsText(0, 6);
    const [first, ...rest] = listings.split('\n</residential>');
    const tricky = [
      `${first}<description><![CDATA[ends </residential> here]]></description>`,
      `${first}<!-- </residential> -->`,
      `${first}<residential>nested</residential>`,
    ];
    for (const inner of tricky) {
      const text = `<propertyList>${[inner, ...rest].join('\n</residential>')}${listingsText(6, 9)}</propertyList>\n`;
      const { here, threads } = await bothWays(text, 1);
      expect(threads, inner.slice(-60)).to.deep.equal(here);
    }
    // Every end tag written with a space: no cut is ever found, and past 16 KB the rest is read here.
    const spaced = variedFeed(0, 30).replace(/<\/(residential|rental|land|rural|commercial|holidayRental|business)>/g, '</$1 >');
    const { here, threads } = await bothWays(spaced, 1000, 16_000);
    expect(here.filter((line) => line.startsWith('full ')).length).to.equal(30);
    expect(threads).to.deep.equal(here);
  });

  it('passes on a feed that fails to arrive after the listings read before, and lets go of a feed its reader stops reading', async () => {
    const text = variedFeed(0, 200);
    const broken = new Error('the connection was reset');
    let closed = false;
    async function* arriving(upTo: number) {
      try {
        for (const chunk of chunkString(text.slice(0, upTo), 4096)) yield chunk;
        if (upTo < text.length) throw broken;
      } finally {
        closed = true;
      }
    }
    configureReadThreads(2, { splitFrom: 0, pieceSize: 4096 });
    for (const upTo of [text.length / 2, text.length / 3 + 1234]) {
      const read: number[] = [];
      const failure = await (async () => {
        for await (const batch of readFeed('reaxml', arriving(upTo), AU_CONTEXT, [])) read.push(...batch.listings.map((l) => l.index));
      })().catch((err: unknown) => err);
      expect(failure).to.equal(broken);
      expect(read).to.deep.equal(read.map((_, i) => i));
      expect(read.length).to.be.greaterThan(20);
    }
    closed = false;
    for await (const batch of readFeed('reaxml', arriving(text.length), AU_CONTEXT, [])) if (batch.listings.length > 0) break;
    expect(closed, 'the feed was let go').to.equal(true);
  });

  it('cuts between root children past the piece size, stepping over comments, CDATA, instructions and quoted attribute values', () => {
    const head = '<?xml version="1.0"?>\n<propertyList date="x">';
    const body =
      '<residential a="</residential>"><x>y</x></residential>\n' +
      "<!-- <land> --><![CDATA[<land>]]><?pi </land> ?><land b='>'></land><companyName/>\n" +
      '<rental>text &amp; more</rental></propertyList>\n';
    expect(FeedSplitter.head(`${head}${body}`)).to.deep.equal({ split: true, head });
    for (let size = 1; size < body.length; size += 7) {
      // Whatever the arrival in chunks, the same cuts.
      for (const step of [1, 5, 64, body.length]) {
        const splitter = new FeedSplitter(size, Infinity);
        const pieces = [];
        for (let i = 0; i < body.length; i += step) pieces.push(...splitter.push(body.slice(i, i + step)));
        pieces.push(splitter.end());
        expect(pieces.map((p) => p.texts.join('')).join('')).to.equal(body);
        for (const cut of pieces.slice(0, -1).map((p) => p.texts.join(''))) expect(cut).to.match(/(<\/residential>|<\/land>|<companyName\/>|<\/rental>)$/);
        expect(pieces.at(-1)?.final).to.equal(true);
        if (size === 1) {
          expect(pieces.map((p) => p.listingsBefore)).to.deep.equal([0, 1, 2, 2, 3]);
          expect(pieces.map((p) => p.countsBefore.get('land') ?? 0)).to.deep.equal([0, 0, 1, 1, 1]);
        }
      }
    }
  });
});
