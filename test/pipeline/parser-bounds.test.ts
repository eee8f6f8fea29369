import { expect } from 'chai';
import { tooLongForUrl, URL_MAX_CHARS } from '../../lib/safe-url.js';
import { ISSUE_MESSAGE_MAX_CHARS, ListingIssues } from '../../pipeline/issues.js';
import { MARKUP_MAX_DEPTH, plainText } from '../../pipeline/listing-text.js';
import { DATE_MAX_CHARS, hasExplicitOffset, parseReaDate } from '../../pipeline/reaxml/dates.js';
import { ADDRESS_LINE_MAX_CHARS } from '../../pipeline/reso/reso-address.js';
import { embeddedVideoUrl, MEDIA_HTML_MAX_CHARS } from '../../pipeline/reso/reso-links.js';
import { STREET_NUMBER_MAX_CHARS, splitStreetNumber } from '../../pipeline/street-number.js';
import { TEXT_LIMITS } from '../../pipeline/text-limits.js';
import { validateFeed } from '../../pipeline/validate-feed.js';
import { resoRecord } from '../formats/documents.js';
import { ADDRESS, AU_CONTEXT, feed, listingXml } from '../helpers.js';

/**
 * No parser walks text without a bound (docs/security.md, Text the parsers read): each field is
 * capped before it is parsed, and what is past the cap is refused or cut with its warning. The
 * times these bounds buy are measured by bench/parser-bounds.ts, not here.
 */
describe('Text the parsers read: every field bounded before it is parsed', () => {
  const dryRun = async (xml: string) => {
    const result = await validateFeed(feed(listingXml(`${ADDRESS}${xml}`)), AU_CONTEXT);
    return { listing: result.listings[0] as any, issues: result.issues };
  };

  it(`reads no date longer than ${DATE_MAX_CHARS} characters (a date with long white space made the date pattern backtrack)`, async () => {
    const longest = `2024-03-01T10:00:00.${'1'.repeat(DATE_MAX_CHARS - 29)} PM+10:00`;
    expect(longest).to.have.length(DATE_MAX_CHARS);
    expect(parseReaDate(longest, 'Australia/Melbourne')).to.deep.include({ ok: true, value: '2024-03-01T12:00:00.111Z' });
    const spaced = `2024-03-01T10:00:00${' '.repeat(DATE_MAX_CHARS)}+10:00`;
    expect(parseReaDate(spaced, 'Australia/Melbourne')).to.deep.equal({
      ok: false,
      code: 'invalid_date',
      reason: `a text of ${spaced.length} characters is not a date (a date is at most ${DATE_MAX_CHARS})`,
    });
    expect(hasExplicitOffset(spaced)).to.equal(false);
    const { listing, issues } = await dryRun(`<dateAvailable>2024-05-01${' '.repeat(100_000)}x</dateAvailable>`);
    expect(listing.dateAvailable).to.equal(null);
    expect(issues.find((i) => i.code === 'invalid_date')?.message).to.equal(
      `dateAvailable: a text of 100011 characters is not a date (a date is at most ${DATE_MAX_CHARS}); treated as no date`,
    );
  });

  it(`splits no street number longer than ${STREET_NUMBER_MAX_CHARS} characters, and no UnparsedAddress longer than ${ADDRESS_LINE_MAX_CHARS}`, async () => {
    const number = (digits: number) => `5/${'1'.repeat(digits)}`;
    expect(splitStreetNumber(number(STREET_NUMBER_MAX_CHARS - 2))).to.deep.equal({ subNumber: '5', streetNumber: '1'.repeat(STREET_NUMBER_MAX_CHARS - 2) });
    expect(splitStreetNumber(number(STREET_NUMBER_MAX_CHARS - 1))).to.equal(undefined);
    // A record giving only UnparsedAddress: within the limit its parts are read, past it none are.
    const unparsed = (gap: number) => `12/34 Example St${' '.repeat(gap)}, Parramatta NSW 2150`;
    const addressOf = async (text: string) => {
      const record = resoRecord({ UnparsedAddress: text });
      for (const field of ['City', 'StateOrProvince', 'PostalCode']) delete record[field];
      const result = await validateFeed(JSON.stringify(record), AU_CONTEXT, { format: 'reso' });
      expect(result.counts.parsed).to.equal(1);
      return (result.listings[0] as any)?.address ?? null;
    };
    const within = await addressOf(unparsed(ADDRESS_LINE_MAX_CHARS - unparsed(0).length));
    expect(within).to.deep.include({ streetNumber: '34', subNumber: '12', locality: 'Parramatta', region: 'NSW', postcode: '2150' });
    const past = await addressOf(unparsed(ADDRESS_LINE_MAX_CHARS - unparsed(0).length + 1));
    expect(past?.streetNumber ?? null).to.equal(null);
    expect(past?.postcode ?? null).to.equal(null);
  });

  it(`reads no URL longer than ${URL_MAX_CHARS} characters: refused with its warning, never stored cut`, async () => {
    const url = (length: number) => `https://cdn.example.com/${'p'.repeat(length - 'https://cdn.example.com/'.length)}`;
    expect(tooLongForUrl(url(URL_MAX_CHARS))).to.equal(false);
    expect(tooLongForUrl(`  ${url(URL_MAX_CHARS)}  `)).to.equal(false);
    expect(tooLongForUrl(url(URL_MAX_CHARS + 1))).to.equal(true);
    const { listing, issues } = await dryRun(
      `<images><img id="m" url="${url(URL_MAX_CHARS)}"/><img id="n" url="${url(URL_MAX_CHARS + 1)}"/></images><externalLink href="${url(100_000)}"/>`,
    );
    expect(listing.media.map((m: { url: string }) => m.url.length)).to.deep.equal([URL_MAX_CHARS]);
    expect(listing.links ?? []).to.deep.equal([]);
    expect(issues.map((i) => i.code)).to.include.members(['invalid_media_url', 'invalid_link_url']);
    expect(issues.filter((i) => i.code === 'text_truncated')).to.deep.equal([]);
    expect(Math.max(...issues.map((i) => i.message.length))).to.be.at.most(ISSUE_MESSAGE_MAX_CHARS);
  });

  it(`reads markup ${MARKUP_MAX_DEPTH} elements deep at most (html-to-text ran out of stack on 3,000), with a warning`, async () => {
    expect(plainText(`<p>${'<b>'.repeat(MARKUP_MAX_DEPTH - 2)}deep</p>`)).to.equal('deep');
    let told = 0;
    expect(plainText(`<p>shallow</p>${'<b>'.repeat(5_000)}deep`, () => (told += 1))).to.equal('shallow');
    expect(told).to.equal(1);
    const { listing, issues } = await dryRun(`<description>&lt;p&gt;Kept.&lt;/p&gt;${'&lt;div&gt;'.repeat(5_000)}Left out.</description>`);
    expect(listing.description['en-AU']).to.equal('Kept.');
    expect(issues.find((i) => i.code === 'text_truncated')?.message).to.equal(
      `description nests its markup more than ${MARKUP_MAX_DEPTH} elements deep; what lies deeper is left out`,
    );
  });

  it('reads at most five times the kept length of a headline or description with markup, with a warning', async () => {
    const paragraphs = '<p>Room.</p>'.repeat(10_000); // 120,000 characters, 50,000 of text
    const { listing, issues } = await dryRun(`<headline>${'&lt;br&gt;'.repeat(400)}Big</headline><description><![CDATA[${paragraphs}]]></description>`);
    const cuts = issues.filter((i) => i.code === 'text_truncated').map((i) => i.message);
    expect(cuts.slice(0, 2)).to.deep.equal([
      `headline is 1603 characters long with markup; the first ${5 * TEXT_LIMITS.headline} are read`,
      `description is 120000 characters long with markup; the first ${5 * TEXT_LIMITS.description} are read`,
    ]);
    // What was read is still more than a description and its HTML keep: cut as ever.
    expect(cuts.slice(2)).to.have.length(2);
    expect(cuts[2]).to.match(new RegExp(`^description\\.en-AU is \\d+ characters long; the first ${TEXT_LIMITS.description} are kept$`));
    expect(cuts[3]).to.match(new RegExp(`^descriptionHtml\\.en-AU is \\d+ characters long; the first ${TEXT_LIMITS.descriptionHtml} are kept$`));
    expect(listing.description['en-AU']).to.have.length(TEXT_LIMITS.description);
  });

  it(`reads the first ${MEDIA_HTML_MAX_CHARS} characters of a MediaHTML fragment`, () => {
    const player = '<iframe src="https://www.youtube.com/embed/abc"></iframe>';
    expect(embeddedVideoUrl(`${' '.repeat(MEDIA_HTML_MAX_CHARS - player.length)}${player}`, new ListingIssues(0), '')).to.equal(
      'https://www.youtube.com/embed/abc',
    );
    const issues = new ListingIssues(0);
    expect(embeddedVideoUrl(`${' '.repeat(MEDIA_HTML_MAX_CHARS)}${player}`, issues, '')).to.equal(null);
    expect(issues.list.map((i) => i.code)).to.deep.equal(['unknown_embedded_media']);
  });

  it(`keeps issue messages to ${ISSUE_MESSAGE_MAX_CHARS} characters however long the value they quote`, () => {
    const issues = new ListingIssues(0);
    issues.warning('invalid_link_url', `externalLink "${'😀'.repeat(5_000)}" is not an http(s) URL; skipped`, '/x');
    const message = issues.list[0].message;
    expect(message).to.have.length.at.most(ISSUE_MESSAGE_MAX_CHARS);
    expect(message.endsWith('…')).to.equal(true);
    expect(message.at(-2)).to.equal('\ude00'); // whole characters only
  });
});
