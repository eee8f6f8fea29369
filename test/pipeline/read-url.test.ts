import { expect } from 'chai';
import { readUrl } from '../../pipeline/reaxml/map-media.js';

/** The URL the parser reads, serialised, when it is http(s); null otherwise. */
function parserSays(raw: string): string | null {
  try {
    const url = new URL(raw.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

describe('readUrl', () => {
  it('agrees with the URL parser on 50,000 generated URL-like strings, and keeps no quote or bracket raw', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = (parts: string[]) => parts[Math.floor(next() * parts.length)];
    let plain = 0;
    for (let i = 0; i < 50000; i += 1) {
      const host = Array.from({ length: 1 + Math.floor(next() * 4) }, () =>
        pick(['img', 'a', '1', '999', '0x1f', 'x-y', '-', '', 'ex_ample', 'é', '255', 'com']),
      ).join('.');
      const path = Array.from({ length: Math.floor(next() * 4) }, () =>
        pick(['/', 'a', '%', '%2F', ' ', '..', 'b.jpg', '?q=1', '#f', ':', '@', '[', '\\', '|', '"', '^']),
      ).join('');
      const url = `${pick(['http://', 'https://', 'HTTP://', 'ftp://', 'http:/', 'http:', ' https://', ''])}${host}${pick(['', '', ':80', ':99999', ':'])}${path}${pick(['', ' ', '\n'])}`;
      // The same URL as the parser reads (the quick path keeps a plain URL's text), and nothing in
      // it that could end an HTML attribute.
      const read = readUrl(url);
      const expected = parserSays(url);
      expect(read === null ? null : parserSays(read), url).to.equal(expected !== null && /["<>`\s]/.test(expected) ? null : expected);
      if (read !== null) expect(read, url).to.not.match(/["<>\s`]/);
      if (/^https?:\/\/[a-z]/.test(url) && readUrl(url) !== null) plain += 1;
    }
    expect(plain).to.be.greaterThan(1000);
  });
});
