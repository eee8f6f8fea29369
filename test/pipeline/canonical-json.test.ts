import { expect } from 'chai';
import { stringify } from 'safe-stable-stringify';
import { canonicalJson, shape } from '../../pipeline/canonical-json.js';
import { contentHash } from '../../pipeline/hash.js';
import { random } from './varied-listings.js';

const KEYS = ['a', 'b', 'amount', 'currency', 'text', 'display', 'Z', '10', '2', 'é', 'k"q', 'new\nline', 'lat', 'lng', 'slot', 'url'];
const STRINGS = ['', 'plain', 'quote " and \\ backslash', 'line\nbreak\ttab', '\u0000\u001f', '\ud800 lone', 'emoji 🏠', 'é'];

function value(r: () => number, depth: number): unknown {
  const n = Math.floor(r() * (depth > 2 ? 6 : 9));
  if (n === 0) return null;
  if (n === 1) return r() < 0.5;
  if (n === 2) return [0, -0, 1.5, -3, 1e21, Number.NaN, Number.POSITIVE_INFINITY][Math.floor(r() * 7)];
  if (n === 3) return STRINGS[Math.floor(r() * STRINGS.length)];
  if (n === 4) return undefined;
  if (n === 5) return new Date(Date.UTC(2024, 2, 1));
  if (n === 6) return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
  const object: Record<string, unknown> = {};
  for (const key of KEYS) if (r() < 0.3) object[key] = value(r, depth + 1);
  return object;
}

describe('canonical JSON', () => {
  it('is the sorted-key JSON safe-stable-stringify gives, on 5,000 random values, with and without shapes', () => {
    const shapes = [undefined, shape(['amount', 'currency', 'display', 'text'], { a: shape(['lat', 'lng']), b: shape(['url', 'slot']) }), shape(KEYS)];
    for (let seed = 0; seed < 5000; seed += 1) {
      const r = random(seed);
      const object: Record<string, unknown> = {};
      for (const key of KEYS) if (r() < 0.5) object[key] = value(r, 0);
      for (const s of shapes) expect(canonicalJson(object, s), `seed ${seed}`).to.equal(stringify(object));
    }
  });

  it('hashes a listing the same whatever order its objects hold their keys in, without modTime and bookkeeping', () => {
    const listing = {
      listingKey: 'O/1',
      modTime: '2024-03-01T00:00:00Z',
      price: { amount: 1, currency: 'AUD', display: true, text: null },
      address: { country: 'AU', region: 'VIC', display: true },
      hidden: false,
      contentHash: 'x',
    };
    const reordered = {
      contentHash: 'y',
      address: { display: true, region: 'VIC', country: 'AU' },
      hidden: true,
      price: { text: null, display: true, currency: 'AUD', amount: 1 },
      listingKey: 'O/1',
      modTime: '2025-01-01T00:00:00Z',
    };
    expect(contentHash(reordered)).to.equal(contentHash(listing));
    expect(contentHash({ ...listing, price: { ...listing.price, amount: 2 } })).to.not.equal(contentHash(listing));
  });
});
