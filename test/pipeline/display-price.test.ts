import { expect } from 'chai';
import { defaultLocaleOf } from '../../pipeline/countries.js';
import { displayPrice } from '../../pipeline/display-fields.js';
import type { CanonicalListing, Price } from '../../pipeline/types.js';

type Priced = Pick<CanonicalListing, 'status' | 'saleMode' | 'price' | 'rent' | 'sold' | 'address'>;

const forSale = (amount: number, currency: string, country: string | null): Priced => ({
  status: 'active',
  saleMode: 'sale',
  price: { amount, currency, display: true, text: null } as Price,
  rent: null,
  sold: null,
  address: (country ? { country } : null) as CanonicalListing['address'],
});

/** The text a currency format made afresh gives: what displayPrice must give whatever it has formatted before. */
function fresh(amount: number, currency: string, country: string | null): string {
  const locale = country ? `en-${country}` : 'en';
  return new Intl.NumberFormat(locale, { style: 'currency', currency, maximumFractionDigits: Number.isInteger(amount) ? 0 : 2 }).format(amount);
}

describe('display prices', () => {
  it('formats every amount as a currency format made for it would, in any order (formats are kept and reused)', () => {
    const cases: [number, string, string | null][] = [];
    // Whole and fractional amounts, currencies and countries interleaved, so a format kept under
    // too coarse a key would show.
    for (const amount of [650000, 1234.5, 99, 0.75, 1_250_000])
      for (const currency of ['AUD', 'NZD', 'USD', 'EUR', 'JPY']) for (const country of ['AU', 'NZ', 'US', 'DE', null]) cases.push([amount, currency, country]);
    for (let round = 0; round < 2; round += 1)
      for (const [amount, currency, country] of round === 0 ? cases : [...cases].reverse())
        expect(displayPrice(forSale(amount, currency, country)), `${amount} ${currency} ${country}`).to.equal(fresh(amount, currency, country));
  });

  it('shows an amount in a currency the runtime does not know as its code and the number', () => {
    expect(displayPrice(forSale(1000, 'QQQ1', 'AU'))).to.equal('QQQ1 1,000');
    expect(displayPrice(forSale(1000, 'QQQ1', 'AU')), 'the second time alike').to.equal('QQQ1 1,000');
  });

  it("gives a country's default locale the same every time it is asked", () => {
    for (let i = 0; i < 2; i += 1) {
      expect(defaultLocaleOf('au')).to.equal('en-AU');
      expect(defaultLocaleOf('FR')).to.equal('fr-FR');
      expect(defaultLocaleOf('CH')).to.equal('de-CH');
    }
  });
});
