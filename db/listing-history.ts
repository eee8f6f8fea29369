import type { Knex } from 'knex';
import { listingKey } from '../pipeline/listing-key.js';
import { READABLE_STATUSES_SQL } from '../pipeline/listing-statuses.js';
import { HISTORY_KINDS } from './change-log.js';
import { publicPricesOf } from './change-log-sql.js';
import { iso } from './row-values.js';

/** An amount as the public saw it when it applied. */
export interface HistoryAmount {
  amount: number;
  currency?: string;
  /** A rent's period (week, month, year). */
  period?: string;
}

/** The kinds of event a listing's public history is made of. */
export const HISTORY_EVENT_TYPES = ['listed', 'price_changed', 'under_offer', 'sold', 'leased', 'withdrawn', 'back_on_market'] as const;
export type HistoryEventType = (typeof HISTORY_EVENT_TYPES)[number];

export interface HistoryEvent {
  type: HistoryEventType;
  at: string;
  /** The asking price (or rent) from then on: listed, price_changed. */
  price?: HistoryAmount;
  /** The asking price before a price_changed. */
  previousPrice?: HistoryAmount;
  /** The sold (or leased) price: sold, leased. */
  soldPrice?: HistoryAmount;
}

export interface HistoryPage {
  events: HistoryEvent[];
  /** Pass as cursor for older events; null when there are none. */
  next: string | null;
}

/** What a status change means to a buyer. */
function statusEvent(oldStatus: string | null, newStatus: string | null, wasPublic: boolean, isPublic: boolean): HistoryEventType | null {
  if (!isPublic) return wasPublic ? 'withdrawn' : null;
  switch (newStatus) {
    case 'under_offer':
      return 'under_offer';
    case 'sold':
      return 'sold';
    case 'leased':
      return 'leased';
    case 'active':
      return wasPublic && oldStatus === 'active' ? null : 'back_on_market';
    default:
      return null;
  }
}

interface HistoryRow {
  id: string;
  kind: (typeof HISTORY_KINDS)[number];
  old_status: string | null;
  new_status: string | null;
  old_price: HistoryAmount | null;
  new_price: HistoryAmount | null;
  sold_price: HistoryAmount | null;
  public_before: boolean;
  public_after: boolean;
  changed_at: Date;
}

/**
 * A listing's public history from the change log (docs/reads.md, A listing's history), newest
 * first: listed, price changes, under offer, sold or leased, withdrawn, back on the market, each
 * with its time. Amounts are those the public saw when they applied (a withheld one is not in the
 * log), and none at all while the agent withholds the listing's price now (nor a sold price while
 * it is withheld now). Null when the listing is not public (no public read shows it).
 */
export async function listingHistory(db: Knex, office: string, uniqueId: string, page: { limit: number; before?: string }): Promise<HistoryPage | null> {
  const key = listingKey(office, uniqueId);
  const { rows: found } = await db.raw(
    `SELECT p.price IS NOT NULL AS price_shown, p.sold IS NOT NULL OR l.data->'sold'->'price' IS NULL AS sold_shown
       FROM listings l CROSS JOIN ${publicPricesOf('l')} p
      WHERE l.listing_key = ? AND l.is_shown AND l.status IN ${READABLE_STATUSES_SQL}`,
    [key],
  );
  const current = found[0] as { price_shown: boolean; sold_shown: boolean } | undefined;
  if (!current) return null;
  const rows: HistoryRow[] = await db('change_log')
    .where({ resource: 'Property', record_key: key })
    .whereIn('kind', [...HISTORY_KINDS])
    .where((q) => q.where('public_before', true).orWhere('public_after', true))
    .modify((q) => {
      if (page.before) q.where('id', '<', page.before);
    })
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .select('id', 'kind', 'old_status', 'new_status', 'old_price', 'new_price', 'sold_price', 'public_before', 'public_after', 'changed_at');
  const more = rows.length > page.limit;
  const shown = more ? rows.slice(0, page.limit) : rows;
  const amount = (value: HistoryAmount | null) => (value && current.price_shown ? { price: value } : {});
  const events: HistoryEvent[] = [];
  for (const row of shown) {
    const at = iso(row.changed_at);
    const sold = row.sold_price && current.sold_shown ? { soldPrice: row.sold_price } : {};
    if (row.kind === 'published') {
      const type: HistoryEventType = row.new_status === 'sold' ? 'sold' : row.new_status === 'leased' ? 'leased' : 'listed';
      events.push({ type, at, ...(type === 'listed' ? amount(row.new_price) : sold) });
    } else if (row.kind === 'price_changed') {
      events.push({
        type: 'price_changed',
        at,
        ...amount(row.new_price),
        ...(row.old_price && current.price_shown ? { previousPrice: row.old_price } : {}),
      });
    } else {
      const type = statusEvent(row.old_status, row.new_status, row.public_before, row.public_after);
      if (type) events.push({ type, at, ...(type === 'sold' || type === 'leased' ? sold : {}) });
    }
  }
  return { events, next: more ? String(shown.at(-1)!.id) : null };
}
