import type { Price, Rent } from '../types.js';
import { enumKey, type ResoFields } from './reso-values.js';

/** LeaseAmountFrequency (FeeFrequency lookup) to a stored period and the factor that gets there. */
export const FREQUENCIES: Readonly<Record<string, { factor: number; period: Rent['period'] }>> = {
  weekly: { factor: 1, period: 'week' },
  daily: { factor: 7, period: 'week' },
  biweekly: { factor: 0.5, period: 'week' },
  monthly: { factor: 1, period: 'month' },
  semimonthly: { factor: 2, period: 'month' },
  bimonthly: { factor: 0.5, period: 'month' },
  quarterly: { factor: 1 / 3, period: 'month' },
  semiannually: { factor: 1 / 6, period: 'month' },
  annually: { factor: 1, period: 'year' },
};

export const round2 = (n: number) => Math.round(n * 100) / 100;

/** ListPrice as the sale price; an absent or zero price is no amount. */
export function mapListPrice(f: ResoFields, currency: string): Price | null {
  const amount = f.number('ListPrice');
  return amount ? { amount, currency, display: true, text: null } : null;
}

/**
 * The rent of a lease listing: LeaseAmount with LeaseAmountFrequency, converted to weeks or
 * months (a fortnightly rent is stored per week, a quarterly one per month). Without LeaseAmount,
 * ListPrice is the rent, as MLS lease listings use it, and LeaseAmountFrequency still applies to
 * it; with no frequency either, it is read as monthly (the usual MLS period), with a warning.
 */
export function mapLease(f: ResoFields, currency: string): Rent | null {
  const leaseAmount = f.number('LeaseAmount');
  const source = leaseAmount === null ? 'ListPrice' : 'LeaseAmount';
  const amount = leaseAmount ?? f.number('ListPrice');
  if (!amount) return null;
  const raw = f.text('LeaseAmountFrequency');
  if (raw === null) {
    if (source === 'ListPrice')
      f.issues.warning('rent_from_list_price', `no LeaseAmount nor LeaseAmountFrequency; ListPrice ${amount} read as the monthly rent`, f.pathOf('ListPrice'));
    else f.issues.warning('missing_lease_frequency', 'LeaseAmount has no LeaseAmountFrequency; read as monthly', f.pathOf('LeaseAmount'));
    return { amount, currency, period: 'month', display: true, text: null };
  }
  const frequency = FREQUENCIES[enumKey(raw)];
  if (!frequency) {
    f.issues.warning(
      'unsupported_lease_frequency',
      `LeaseAmountFrequency "${raw}" cannot be expressed per week, month or year; the ${source} is shown as text`,
      f.pathOf('LeaseAmountFrequency'),
    );
    return { amount: null, currency, period: 'month', display: true, text: `${amount} ${raw}` };
  }
  return { amount: round2(amount * frequency.factor), currency, period: frequency.period, display: true, text: null };
}

/** ClosePrice and CloseDate of a closed listing. */
export function mapClose(f: ResoFields, currency: string): { price: Price | null; date: string | null } | null {
  const price = f.number('ClosePrice');
  const date = f.text('CloseDate');
  if (!price && !date) return null;
  return {
    price: price ? { amount: price, currency, display: true, text: null } : null,
    date: date && /^\d{4}-\d{2}-\d{2}/.test(date) ? date.slice(0, 10) : null,
  };
}
