import type { Knex } from 'knex';
import { listingKey } from '../pipeline/listing-key.js';
import type { CanonicalListing } from '../pipeline/types.js';
import { iso } from './row-values.js';

/** How many of an office's newest feeds the review looks through for the listing's history. */
const FEEDS_LOOKED_AT = 200;

export interface ListingReview {
  listing: CanonicalListing;
  visibility: { public: boolean; hidden: boolean; reason: string | null };
  createdAt: string;
  updatedAt: string;
  lastFeed: { feedId: string; createdAt: string; status: string; outcome: string | null } | null;
  issues: Record<string, unknown>[];
  statusHistory: { at: string; from: string; to: string; feedId: string }[];
}

/** Why the public does not see a stored listing (null when it does). */
function hiddenBecause(row: { hidden: boolean; is_shown: boolean; is_public: boolean; status: string }): string | null {
  if (row.is_public) return null;
  if (row.hidden) return 'an operator hid it';
  if (!row.is_shown) return 'its source withholds it from the internet';
  return `its status is ${row.status.replace(/_/g, ' ')}, and only active and under-offer listings are public`;
}

/**
 * One stored listing for an operator: the record, whether the public sees it and why not, the
 * newest kept feed of its office that wrote it (inserted or updated it) with that feed's issues
 * for it, and the status changes the office's kept feeds made to it. Looks through the office's
 * newest feeds only, so the cost is bounded however many feeds the office has sent.
 */
export async function listingReview(db: Knex, office: string, uniqueId: string): Promise<ListingReview | null> {
  const key = listingKey(office, uniqueId);
  const row = await db('listings').where({ listing_key: key }).first('data', 'hidden', 'is_shown', 'is_public', 'status', 'created_at', 'updated_at');
  if (!row) return null;
  const recent = db('feed_events')
    .whereRaw('? = ANY(office_scope)', [office])
    .whereNotNull('result')
    .orderBy('created_at', 'desc')
    .limit(FEEDS_LOOKED_AT)
    .select('id', 'created_at', 'status', 'outcome', 'result');
  const [writer] = await db
    .from(recent.as('f'))
    .whereRaw(`f.result->'upserts' @> ?::jsonb OR f.result->'upserts' @> ?::jsonb`, [
      JSON.stringify([{ listingKey: key, action: 'inserted' }]),
      JSON.stringify([{ listingKey: key, action: 'updated' }]),
    ])
    .orderBy('f.created_at', 'desc')
    .limit(1)
    .select(
      'f.id',
      'f.created_at',
      'f.status',
      'f.outcome',
      db.raw(
        `(SELECT coalesce(jsonb_agg(i), '[]'::jsonb) FROM jsonb_array_elements(coalesce(f.result->'issues', '[]'::jsonb)) i WHERE i->>'uniqueId' = ?) AS issues`,
        [uniqueId],
      ),
    );
  const changes = await db
    .from(recent.clone().as('f'))
    .joinRaw(`CROSS JOIN LATERAL jsonb_array_elements(coalesce(f.result->'statusChanges', '[]'::jsonb)) c`)
    .whereRaw(`c->>'listingKey' = ?`, [key])
    .orderBy('f.created_at', 'asc')
    .select('f.id', 'f.created_at', db.raw(`c->>'from' AS "from"`), db.raw(`c->>'to' AS "to"`));
  return {
    listing: { ...row.data, hidden: row.hidden },
    visibility: { public: row.is_public, hidden: row.hidden, reason: hiddenBecause(row) },
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    lastFeed: writer ? { feedId: writer.id, createdAt: iso(writer.created_at), status: writer.status, outcome: writer.outcome ?? null } : null,
    issues: writer?.issues ?? [],
    statusHistory: changes.map((c: any) => ({ at: iso(c.created_at), from: c.from, to: c.to, feedId: c.id })),
  };
}
