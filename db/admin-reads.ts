import type { Knex } from 'knex';
import { PROBLEM_OUTCOMES } from '../lib/feed-outcome.js';
import { listingKey } from '../pipeline/listing-key.js';
import type { CanonicalListing } from '../pipeline/types.js';
import { refreshDirectory } from './directory.js';
import { camelColumns, iso, isoOrNull, likePattern, offsetPage } from './row-values.js';
import type * as Row from './rows.js';
import { FEED_SORTS, LISTING_SORTS, orderBySql } from './sort-order.js';

/** Listings for review, hidden and non-public included, most recently changed first. */
export async function adminListings(
  db: Knex,
  query: { q?: string; hidden?: 'true' | 'false'; office?: string; status?: string; sort?: string; limit: number; offset: number },
) {
  const base = () => {
    const q = db('listings');
    if (query.hidden) q.where('hidden', query.hidden === 'true');
    if (query.office) q.where({ office: query.office });
    if (query.status) q.where({ status: query.status });
    if (query.q) {
      const pattern = likePattern(query.q);
      q.where((w) =>
        w
          .whereRaw("lower(listing_key) LIKE ? ESCAPE '\\'", [pattern])
          .orWhereRaw(
            "lower(concat_ws(' ', data->'address'->>'streetNumber', data->'address'->>'street', data->'address'->>'locality', data->'address'->>'postcode')) LIKE ? ESCAPE '\\'",
            [pattern],
          )
          .orWhereRaw("lower((data->'headline')::text) LIKE ? ESCAPE '\\'", [pattern])
          .orWhereRaw("lower(jsonb_path_query_array(data, '$.agents[*].name')::text) LIKE ? ESCAPE '\\'", [pattern]),
      );
    }
    return q;
  };
  type Reviewed = Pick<Row.Listing, 'listing_key' | 'office' | 'unique_id' | 'status' | 'hidden' | 'is_public' | 'mod_time' | 'updated_at'> & {
    headline: CanonicalListing['headline'];
    address: CanonicalListing['address'];
  };
  const { rows, total } = await offsetPage<Reviewed>(
    base,
    (q) =>
      q
        .select(
          'listing_key',
          'office',
          'unique_id',
          'status',
          'hidden',
          'is_public',
          'mod_time',
          'updated_at',
          db.raw("data->'headline' AS headline"),
          db.raw("data->'address' AS address"),
        )
        .orderByRaw(orderBySql(query.sort ?? '-updated', LISTING_SORTS, 'listing_key')),
    query,
  );
  return {
    total,
    listings: rows.map((r) => ({
      ...camelColumns(r, ['listing_key', 'office', 'unique_id', 'status', 'hidden', 'headline', 'address']),
      public: r.is_public,
      modTime: iso(r.mod_time),
      updatedAt: iso(r.updated_at),
    })),
  };
}

/**
 * Sets the operator hidden flag (ingestion never touches it), moves updated_at on, and rebuilds the office's directory
 * rows. null for an unknown listing.
 */
export async function setListingHidden(
  db: Knex,
  office: string,
  uniqueId: string,
  hidden: boolean,
): Promise<{ listingKey: string; hidden: boolean; status: string } | null> {
  const [row] = await db('listings')
    .where({ listing_key: listingKey(office, uniqueId) })
    // updated_at moves on: the public record appeared or went, which readers replicating by
    // modification time (GET /v1/listings?updatedSince, RESO ModificationTimestamp) must see.
    .update({ hidden, updated_at: db.raw('change_stamp()') })
    .returning(['listing_key', 'hidden', 'status']);
  if (!row) return null;
  await refreshDirectory(db, [office]);
  return { listingKey: row.listing_key, hidden: row.hidden, status: row.status };
}

/**
 * Whether a feed event (the row `feed_events`) still needs an operator's look: its outcome is a
 * problem (PROBLEM_OUTCOMES), except a tripped feed whose held archives have all been resolved
 * (applied or reviewed in the quarantine), which is done with.
 */
const NEEDS_LOOK_SQL = `(feed_events.outcome IN (${PROBLEM_OUTCOMES.map((o) => `'${o}'`).join(', ')})
  AND (feed_events.outcome <> 'tripped' OR feed_events.id IN (SELECT q.feed_id FROM quarantine_items q WHERE q.resolved_at IS NULL)))`;

/** What the operators' feed list filters by (each optional), its order and its page. */
export interface AdminFeedQuery {
  status?: string;
  outcome?: string;
  needsLook?: 'true' | 'false';
  feedId?: string;
  since?: string;
  keyId?: string;
  office?: string;
  sort?: string;
  limit: number;
  offset: number;
}

/** The feed_events columns the list shows as they are (the result is shown without its per-listing upserts). */
const FEED_COLUMNS = [
  'id',
  'source',
  'key_id',
  'office_scope',
  'format',
  'mode',
  'status',
  'outcome',
  'attempts',
  'body_bytes',
  'error',
  'error_detail',
  'progress',
  'created_at',
  'started_at',
  'finished_at',
] as const;

type AdminFeedRow = Pick<Row.FeedEvent, (typeof FEED_COLUMNS)[number] | 'result'> & { needs_look: boolean; client_name: string | null };

/** The feed events the query's filters select (a fresh builder each call). */
function feedEventsWhere(db: Knex, query: AdminFeedQuery): Knex.QueryBuilder {
  const q = db('feed_events');
  if (query.feedId) q.where('feed_events.id', query.feedId);
  if (query.status) q.where({ status: query.status });
  if (query.outcome) q.whereIn('outcome', query.outcome.split(','));
  if (query.needsLook) q.whereRaw(`${NEEDS_LOOK_SQL} = ?`, [query.needsLook === 'true']);
  if (query.since) q.where('created_at', '>=', query.since);
  if (query.keyId) q.where({ key_id: query.keyId });
  if (query.office) q.whereRaw('? = ANY(office_scope)', [query.office]);
  return q;
}

/** A feed event as the operators' list shows it. */
function adminFeedView(r: AdminFeedRow) {
  return {
    feedId: r.id,
    source: r.source,
    keyId: r.key_id,
    clientName: r.client_name ?? null,
    officeScope: r.office_scope,
    format: r.format,
    mode: r.mode,
    status: r.status,
    outcome: r.outcome,
    needsLook: r.needs_look,
    attempts: r.attempts,
    bodyBytes: Number(r.body_bytes),
    createdAt: iso(r.created_at),
    startedAt: isoOrNull(r.started_at),
    finishedAt: isoOrNull(r.finished_at),
    error: r.error,
    errorDetail: r.error_detail ?? null,
    progress: r.progress ?? null,
    ok: r.result?.ok ?? null,
    counts: r.result?.counts ?? null,
    summary: r.result?.summary ?? null,
    reconcile: r.result?.reconcile ?? null,
    issues: r.result?.issues ?? [],
  };
}

/** Recent feed events: source, scope, counts, status and issues (never the body or the per-listing upserts). */
export async function adminFeeds(db: Knex, query: AdminFeedQuery) {
  const { rows, total } = await offsetPage<AdminFeedRow>(
    () => feedEventsWhere(db, query),
    (q) =>
      q
        .select(
          ...FEED_COLUMNS,
          db.raw("result - 'upserts' AS result"),
          db.raw(`${NEEDS_LOOK_SQL} AS needs_look`),
          db.raw('(SELECT k.client_name FROM feed_keys k WHERE k.id = feed_events.key_id) AS client_name'),
        )
        .orderByRaw(orderBySql(query.sort ?? '-received', FEED_SORTS, 'id')),
    query,
  );
  return { total, feeds: rows.map(adminFeedView) };
}

/** The dashboard figures: listings, directory, quarantine, feed keys, leads by status, blocklist size (queue depths are added by the route). */
export async function adminStats(db: Knex) {
  const [[listings], byStatus, [directory], [quarantine], [keys], leads, [blocklist], [feeds]] = await Promise.all([
    db('listings').select(
      db.raw('count(*)::int AS total'),
      db.raw('count(*) FILTER (WHERE is_public)::int AS public'),
      db.raw('count(*) FILTER (WHERE hidden)::int AS hidden'),
      db.raw("count(*) FILTER (WHERE status = 'archived')::int AS archived"),
    ),
    db('listings').select('status').count({ n: '*' }).groupBy('status'),
    db.select(db.raw('(SELECT count(*) FROM directory_agents)::int AS agents'), db.raw('(SELECT count(*) FROM directory_offices)::int AS offices')),
    db('quarantine_items').whereNull('resolved_at').count({ open: '*' }),
    db('feed_keys').select(
      db.raw("count(*) FILTER (WHERE status = 'suspended')::int AS suspended"),
      db.raw("count(*) FILTER (WHERE status = 'active')::int AS active"),
    ),
    db('leads').select('status').count({ n: '*' }).groupBy('status'),
    db('blocklist').count({ n: '*' }),
    db('feed_events')
      .where('created_at', '>=', db.raw("now() - interval '7 days'"))
      .select(
        db.raw("count(*) FILTER (WHERE created_at >= now() - interval '24 hours')::int AS total24h"),
        db.raw(`count(*) FILTER (WHERE created_at >= now() - interval '24 hours' AND ${NEEDS_LOOK_SQL})::int AS problems24h`),
        db.raw('count(*)::int AS total7d'),
        db.raw(`count(*) FILTER (WHERE ${NEEDS_LOOK_SQL})::int AS problems7d`),
      ),
  ]);
  return {
    listings: { ...listings, byStatus: Object.fromEntries((byStatus as Row.StatusCount[]).map((r) => [r.status, Number(r.n)])) },
    directory,
    quarantine: { open: Number(quarantine.open) },
    feedKeys: keys,
    leads: Object.fromEntries((leads as Row.StatusCount[]).map((r) => [r.status, Number(r.n)])),
    blocklist: { entries: Number(blocklist.n) },
    feeds: {
      last24h: { total: feeds.total24h, problems: feeds.problems24h },
      last7d: { total: feeds.total7d, problems: feeds.problems7d },
    },
  };
}
