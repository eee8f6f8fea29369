import type { Knex } from 'knex';
import type { FeedOutcome } from '../lib/feed-outcome.js';
import { listingKey } from '../pipeline/listing-key.js';
import { READABLE_STATUSES } from '../pipeline/listing-statuses.js';
import type { CanonicalListing, Issue } from '../pipeline/types.js';
import { listingEnquiryCounts } from './lead-stats.js';
import { storedListing } from './listings-store.js';
import { iso } from './row-values.js';

/** Why a listing is not in public searches (null: it is). */
export type NotPublicReason = 'hidden_by_operator' | 'withheld_by_source' | 'sold' | 'leased' | 'withdrawn' | 'off_market' | 'archived' | 'never_valid';

const EXPLANATIONS: Record<NotPublicReason, string> = {
  hidden_by_operator: 'an operator hid it: no public read shows it, whatever its feeds send, until an operator shows it again',
  withheld_by_source: 'its source withholds it from the internet (RESO InternetEntireListingDisplayYN false): no public read shows it',
  sold: 'it is sold: its own page still answers, and searches with status=sold list it, but the default search (on the market) does not',
  leased: 'it is leased: its own page still answers, and searches with status=leased list it, but the default search (on the market) does not',
  withdrawn: 'its feed withdrew it: public reads answer that it is no longer listed',
  off_market: 'its feed took it off the market: public reads answer that it is no longer listed',
  archived: 'a full feed of its office no longer carried it, so it was archived: public reads answer that it is no longer listed',
  never_valid: 'no feed has sent it valid yet, so nothing is stored: see the last feed’s issues for it',
};

/** Where the owner's listing stands and why, and the last feed that carried it. */
export interface ListingStatus {
  /** The stored record in full (what the agent withholds from the public included); null when never stored. */
  listing: CanonicalListing | null;
  public: {
    /** GET /v1/listings/{office}/{uniqueId} answers it. */
    readable: boolean;
    /** The default search (on the market) lists it. */
    inSearch: boolean;
    reason: NotPublicReason | null;
    explanation: string | null;
  };
  /** An open circuit-breaker trip holds this listing's archive for an operator's review (it stays as it is meanwhile). */
  quarantine: { id: string; feedId: string; createdAt: string } | null;
  /** Enquiries (leads) about it in the last 7 and 30 days. */
  enquiries: { last7Days: number; last30Days: number };
  /** The newest feed that carried the listing (among its office's last LAST_FEEDS_SEARCHED finished feeds). */
  lastFeed: {
    feedId: string;
    source: 'api' | 'sftp';
    mode: 'full' | 'incremental';
    createdAt: string;
    outcome: FeedOutcome;
    /** What that feed did with it: inserted, updated, unchanged, stale_ignored; refused when its errors kept it out. */
    action: 'inserted' | 'updated' | 'unchanged' | 'stale_ignored' | 'refused';
    /** That feed's issues for this listing (by its uniqueId), in feed order. */
    issues: Issue[];
  } | null;
}

/** How many of the office's newest finished feeds are searched for the last one that carried a listing. */
export const LAST_FEEDS_SEARCHED = 500;
const PAGE = 25;

/** The listing's status for its owner; null when nothing is stored and no recent feed carried it. */
export async function listingStatus(db: Knex, office: string, uniqueId: string): Promise<ListingStatus | null> {
  const key = listingKey(office, uniqueId);
  const [row, listing, quarantine, lastFeed, enquiries] = await Promise.all([
    db('listings').where({ listing_key: key }).first('status', 'hidden', 'is_shown', 'is_public'),
    storedListing(db, office, uniqueId),
    db('quarantine_items')
      .whereNull('resolved_at')
      .where({ office })
      .whereRaw('keys @> ?::jsonb', [JSON.stringify([key])])
      .orderBy('created_at', 'desc')
      .first('id', 'feed_id', 'created_at'),
    lastFeedOf(db, office, key, uniqueId),
    listingEnquiryCounts(db, office, uniqueId),
  ]);
  if (!row && !lastFeed) return null;
  const reason = notPublicReason(row);
  const readable = Boolean(row?.is_shown) && (READABLE_STATUSES as readonly string[]).includes(row.status);
  return {
    listing,
    public: { readable, inSearch: Boolean(row?.is_public), reason, explanation: reason ? EXPLANATIONS[reason] : null },
    quarantine: quarantine ? { id: quarantine.id, feedId: quarantine.feed_id, createdAt: iso(quarantine.created_at) } : null,
    lastFeed,
    enquiries,
  };
}

function notPublicReason(row: { status: string; hidden: boolean; is_shown: boolean; is_public: boolean } | undefined): NotPublicReason | null {
  if (!row) return 'never_valid';
  if (row.is_public) return null;
  if (row.hidden) return 'hidden_by_operator';
  if (!row.is_shown) return 'withheld_by_source';
  return row.status as NotPublicReason;
}

/**
 * The newest finished feed among the office's last LAST_FEEDS_SEARCHED that carried the listing,
 * as a valid listing (its upserts name the key) or a refused one (its issues name the uniqueId).
 * Read a page of feeds at a time, newest first, so a listing the latest feed carried costs one
 * short query, and no listing costs more than a bounded number of results.
 */
async function lastFeedOf(db: Knex, office: string, key: string, uniqueId: string): Promise<ListingStatus['lastFeed']> {
  const upsert = JSON.stringify([{ listingKey: key }]);
  const issue = JSON.stringify([{ uniqueId }]);
  for (let offset = 0; offset < LAST_FEEDS_SEARCHED; offset += PAGE) {
    const ids: string[] = await db('feed_events')
      .where({ status: 'done' })
      .whereRaw('? = ANY(office_scope)', [office])
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(PAGE)
      .offset(offset)
      .pluck('id');
    if (ids.length === 0) return null;
    const found = await db('feed_events')
      .whereIn('id', ids)
      .where((q) => q.whereRaw(`result->'upserts' @> ?::jsonb`, [upsert]).orWhereRaw(`result->'issues' @> ?::jsonb`, [issue]))
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .first(
        'id',
        'source',
        'mode',
        'created_at',
        'outcome',
        db.raw(`(SELECT u->>'action' FROM jsonb_array_elements(result->'upserts') u WHERE u->>'listingKey' = ? LIMIT 1) AS action`, [key]),
        db.raw(
          `coalesce((SELECT jsonb_agg(i ORDER BY n) FROM jsonb_array_elements(result->'issues') WITH ORDINALITY AS t(i, n) WHERE i->>'uniqueId' = ?), '[]') AS issues`,
          [uniqueId],
        ),
      );
    if (found) {
      return {
        feedId: found.id,
        source: found.source,
        mode: found.mode,
        createdAt: iso(found.created_at),
        outcome: found.outcome,
        action: found.action ?? 'refused',
        issues: found.issues,
      };
    }
    if (ids.length < PAGE) return null;
  }
  return null;
}
