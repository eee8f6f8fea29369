import type { Knex } from 'knex';
import { listingKey } from '../pipeline/listing-key.js';
import { type ListingStatus, listingStatus } from './listing-status.js';
import { iso } from './row-values.js';

/**
 * How many of the office's newest feeds the status history reads. Each feed's whole stored result
 * is read to find its status changes (a full feed's result names every listing it carried), so this
 * stays well below the owner's last-feed search.
 */
const HISTORY_FEEDS = 100;

/** A stored listing for an operator: its status as its owner sees it, plus when it was stored and its status history. */
export interface ListingReview extends ListingStatus {
  createdAt: string;
  updatedAt: string;
  statusHistory: { at: string; from: string; to: string; feedId: string }[];
}

/**
 * One stored listing for an operator. It holds what its owner's status route gives: the record,
 * whether the public sees it and why not, an open quarantine, and the newest feed that carried it
 * with that feed's issues for it. To that it adds when it was first stored and last changed, and
 * the status changes the office's newest feeds made to it. It looks through the same bounded
 * number of feeds, so no listing costs more than that. null when the listing is not stored.
 */
export async function listingReview(db: Knex, office: string, uniqueId: string): Promise<ListingReview | null> {
  const key = listingKey(office, uniqueId);
  const [status, row] = await Promise.all([listingStatus(db, office, uniqueId), db('listings').where({ listing_key: key }).first('created_at', 'updated_at')]);
  if (!status?.listing || !row) return null;
  const recent = db('feed_events')
    .where({ status: 'done' })
    .whereRaw('? = ANY(office_scope)', [office])
    .orderBy('created_at', 'desc')
    .limit(HISTORY_FEEDS)
    .select('id', 'created_at', 'result');
  const changes = await db
    .from(recent.as('f'))
    .joinRaw(`CROSS JOIN LATERAL jsonb_array_elements(coalesce(f.result->'statusChanges', '[]'::jsonb)) c`)
    .whereRaw(`c->>'listingKey' = ?`, [key])
    .orderBy('f.created_at', 'asc')
    .select('f.id', 'f.created_at', db.raw(`c->>'from' AS "from"`), db.raw(`c->>'to' AS "to"`));
  return {
    ...status,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    statusHistory: changes.map((c: { id: string; created_at: Date; from: string; to: string }) => ({
      at: iso(c.created_at),
      from: c.from,
      to: c.to,
      feedId: c.id,
    })),
  };
}
