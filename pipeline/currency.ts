import { currencyOfCountry } from './countries.js';
import type { ListingIssues } from './issues.js';
import type { FeedContext } from './types.js';

/**
 * Currency (docs/architecture.md, The canonical listing): the context's currency goes on every price; without it, the currency of the
 * listing's country, with a warning; an error when not even that is known ('XXX' stands in).
 */
export function resolveCurrency(feed: FeedContext, country: string, issues: ListingIssues, path: string): string {
  if (feed.currency) return feed.currency;
  const currency = currencyOfCountry(country);
  if (currency) {
    issues.warning('currency_from_country', `no currency in the context; ${currency}, the currency of ${country}, was used`, path);
    return currency;
  }
  issues.error('currency_unknown', `no currency in the context and none is known for country ${country}`, path);
  return 'XXX';
}
