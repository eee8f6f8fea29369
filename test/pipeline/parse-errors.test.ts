import { expect } from 'chai';
import { decodeXmlBytes } from '../../pipeline/decode.js';
import { FeedSyntaxError } from '../../pipeline/feed-syntax-error.js';
import { readReaxmlFeed } from '../../pipeline/reaxml/read-reaxml-feed.js';
import type { Issue } from '../../pipeline/types.js';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { ADDRESS, AU_CONTEXT, feed, listingXml } from '../helpers.js';

const refuse = async (xml: string | AsyncIterable<string>, pattern: RegExp) => {
  const err = await validateFeed(xml, AU_CONTEXT).then(
    () => null,
    (e) => e,
  );
  expect(err, 'expected a FeedSyntaxError').to.be.instanceOf(FeedSyntaxError);
  expect(err.message).to.match(pattern);
  return err as FeedSyntaxError;
};

describe('feeds that cannot be read, and hostile XML', () => {
  it('not well-formed: unclosed tag, mismatched tag, truncated, unescaped ampersand', async () => {
    const e = await refuse('<propertyList>\n<residential>\n</propertyList>', /not well-formed/);
    expect(e.line).to.equal(3);
    await refuse(feed(listingXml(ADDRESS)).slice(0, -20), /not well-formed/);
    await refuse(feed(listingXml(`${ADDRESS}<externalLink href="http://x?a=1&b=2"/>`)), /not well-formed/);
  });

  it('wrong root, empty documents and feeds without listings', async () => {
    await refuse('<listings><residential/></listings>', /root element must be propertyList.*found listings \(line 1, column \d+\)/);
    await refuse('', /feed is empty \(line 1, column 1\)/);
    await refuse('   \n  ', /feed has no root element|not well-formed/);
    await refuse('<?xml version="1.0"?>\n<propertyList>\n</propertyList>', /feed contains no listings \(root element propertyList\) \(line 3/);
  });

  it('refuses DOCTYPE entity declarations (billion laughs) quickly and never expands them', async () => {
    const bomb = `<?xml version="1.0"?>
<!DOCTYPE propertyList [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<propertyList><residential modTime="2024-01-01" status="current"><agentID>A</agentID><uniqueID>&lol9;</uniqueID></residential></propertyList>`;
    const started = process.hrtime.bigint();
    await refuse(bomb, /DOCTYPE entity declarations are not allowed/);
    expect(Number(process.hrtime.bigint() - started) / 1e6).to.be.lessThan(1000);
  });

  it('never resolves external entities (XXE)', async () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE propertyList [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><propertyList>${listingXml(`${ADDRESS}<headline>&xxe;</headline>`)}</propertyList>`;
    await refuse(xxe, /DOCTYPE entity declarations are not allowed/);
    // Without a declaration the entity is simply undefined.
    await refuse(feed(listingXml(`${ADDRESS}<headline>&xxe;</headline>`)), /not well-formed: undefined entity/);
  });

  it('accepts the REA DOCTYPE without fetching it, a byte-order mark, and common HTML entities', async () => {
    const xml = `\uFEFF<?xml version="1.0"?>\n<!DOCTYPE propertyList SYSTEM "http://127.0.0.1:9/never-fetched.dtd">\n${feed(listingXml(`${ADDRESS}<headline>Sun&nbsp;&amp;&nbsp;surf &ndash; &#x2013; now</headline>`)).replace(/^<\?xml[^>]*>\n/, '')}`;
    const result = await validateFeed(xml, AU_CONTEXT);
    expect(result.listings[0].headline).to.deep.equal({ 'en-AU': 'Sun\u00a0&\u00a0surf \u2013 \u2013 now' });
  });

  it('reads every HTML5 named character, and refuses names that are only Object.prototype keys, naming the entity', async () => {
    const result = await validateFeed(feed(listingXml(`${ADDRESS}<headline>Jard&iacute;n &oacute; &rarr; &hellip;</headline>`)), AU_CONTEXT);
    expect(result.listings[0].headline).to.deep.equal({ 'en-AU': 'Jard\u00edn \u00f3 \u2192 \u2026' });
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'notAnEntity']) {
      await refuse(feed(listingXml(`${ADDRESS}<headline>a&${name};b</headline>`)), new RegExp(`not well-formed: undefined entity &${name};`));
    }
  });

  it('refuses absurd nesting', async () => {
    await refuse(`<propertyList>${'<a>'.repeat(100)}${'</a>'.repeat(100)}</propertyList>`, /nested deeper than 64/);
  });

  it('decodes declared single-byte encodings and drops a UTF-8 BOM from bytes', async () => {
    const latin1 = Buffer.from(
      `<?xml version="1.0" encoding="ISO-8859-1"?>${feed(listingXml(`${ADDRESS}<headline>Caf\u00e9 d\u00e9cor</headline>`)).replace(/^<\?xml[^>]*>/, '')}`,
      'latin1',
    );
    const result = await validateFeed(decodeXmlBytes([latin1]), AU_CONTEXT);
    expect(result.listings[0].headline).to.deep.equal({ 'en-AU': 'Caf\u00e9 d\u00e9cor' });
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(feed(listingXml(ADDRESS)))]);
    expect((await validateFeed(decodeXmlBytes([withBom.subarray(0, 2), withBom.subarray(2)]), AU_CONTEXT)).counts.valid).to.equal(1);
    await refuse(decodeXmlBytes([Buffer.from('<?xml version="1.0" encoding="x-klingon"?><propertyList/>')]), /unsupported encoding "x-klingon"/);
  });

  it("warns where bytes that are not UTF-8 were replaced, in the dry run and ingestion's read alike", async () => {
    const text = feed(listingXml(`${ADDRESS}<headline>ok</headline>`), listingXml(`${ADDRESS}<headline>Caf@ view</headline>`).replace('L1', 'L2'));
    const at = Buffer.from(text).indexOf('@');
    const bytes = Buffer.from(text);
    const broken = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xe9]), bytes.subarray(at + 1)]); // Latin-1 é in a UTF-8 feed
    const result = await validateFeed(decodeXmlBytes([broken]), AU_CONTEXT);
    const replaced = (issues: { code: string; listingIndex: number | null; path: string }[]) =>
      issues.filter((i) => i.code === 'invalid_utf8_replaced').map((i) => [i.listingIndex, i.path]);
    expect(replaced(result.issues)).to.deep.equal([[1, '/propertyList/residential[2]/headline[1]']]);
    expect(result.listings[1].headline).to.deep.equal({ 'en-AU': 'Caf\ufffd view' });
    const ingestion: Issue[] = [];
    for await (const batch of readReaxmlFeed(decodeXmlBytes([broken]), AU_CONTEXT, []))
      for (const item of batch) {
        item.sourceHash();
        item.delta();
        ingestion.push(...item.issues.list);
      }
    expect(replaced(ingestion)).to.deep.equal(replaced(result.issues));
  });

  it('decodes UTF-16 feeds by their byte-order mark, or by their first character', async () => {
    const text = `<?xml version="1.0" encoding="UTF-16"?>${feed(listingXml(`${ADDRESS}<headline>Caf\u00e9 \u2013 \u6771\u4eac</headline>`)).replace(/^<\?xml[^>]*>/, '')}`;
    const le = Buffer.from(text, 'utf16le');
    const be = Buffer.from(le).swap16();
    for (const [name, bytes] of [
      ['LE with BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), le])],
      ['BE with BOM', Buffer.concat([Buffer.from([0xfe, 0xff]), be])],
      ['LE without BOM', le],
      ['BE without BOM', be],
    ] as const) {
      const chunks = [bytes.subarray(0, 1), bytes.subarray(1, 7), bytes.subarray(7)]; // the mark split across chunks
      const result = await validateFeed(decodeXmlBytes(chunks), AU_CONTEXT);
      expect(result.listings[0]?.headline, name).to.deep.equal({ 'en-AU': 'Caf\u00e9 \u2013 \u6771\u4eac' });
    }
  });

  it('survives random bytes: a result or a FeedSyntaxError, nothing else', async () => {
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const base = feed(listingXml(`${ADDRESS}<headline>Hi</headline>`));
    for (let n = 0; n < 300; n += 1) {
      const chars = [...base];
      for (let k = 0; k < 5; k += 1) chars[Math.floor(rand() * chars.length)] = String.fromCharCode(Math.floor(rand() * 128));
      const outcome = await validateFeed(chars.join(''), AU_CONTEXT).then(
        (r) => r,
        (e) => e,
      );
      if (outcome instanceof Error) expect(outcome, outcome.stack).to.be.instanceOf(FeedSyntaxError);
      else expect(outcome.counts.parsed).to.be.at.least(1);
    }
  });
});
