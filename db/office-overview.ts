import type { Knex } from 'knex';
import { DEFAULT_LEAD_DELIVERY, type LeadDelivery } from './leads.js';
import { type DropSettings, defaultDropSettings, storedDropSettings } from './office-drops.js';
import { nextOffsetOf } from './row-values.js';
import type * as Row from './rows.js';

export interface OfficeOverview {
  office: string;
  /** Where enquiries go when no agent of the listing has an email; null when none is set. */
  leadEmail: string | null;
  /** How its leads are delivered: email, crm or both. */
  leadDelivery: LeadDelivery;
  dropSettings: DropSettings;
  /** Stored listings of the office by status. */
  listingsByStatus: Record<string, number>;
  /** Feed keys whose scope includes the office. */
  keys: { id: string; clientName: string; status: string }[];
}

/**
 * Everything the service holds about one office: its settings, its listings by status and the keys
 * that may push for it. Null when it holds nothing (no listing, key or setting names the office).
 */
export async function officeOverview(db: Knex, office: string): Promise<OfficeOverview | null> {
  const [lead, stored, statuses, keys] = await Promise.all([
    db('office_settings').where({ office }).first('lead_email', 'lead_delivery'),
    storedDropSettings(db, office),
    db('listings').where({ office }).select('status').count({ n: '*' }).groupBy('status'),
    db('feed_keys').whereRaw('? = ANY(office_ids)', [office]).orderBy('created_at').select('id', 'client_name', 'status'),
  ]);
  if (!lead && !stored && statuses.length === 0 && keys.length === 0) return null;
  return {
    office,
    leadEmail: lead?.lead_email ?? null,
    leadDelivery: lead?.lead_delivery ?? DEFAULT_LEAD_DELIVERY,
    dropSettings: stored ?? defaultDropSettings(office),
    listingsByStatus: Object.fromEntries((statuses as Row.StatusCount[]).map((r) => [r.status, Number(r.n)])),
    keys: keys.map((k: Pick<Row.FeedKey, 'id' | 'client_name' | 'status'>) => ({ id: k.id, clientName: k.client_name, status: k.status })),
  };
}

/** One row of the offices list. */
export interface OfficeRow {
  office: string;
  listings: { total: number; public: number };
  leadEmail: string | null;
  leadDelivery: LeadDelivery;
  /** Whether SFTP drop settings were saved for the office (else defaults apply). */
  dropSettings: boolean;
  keys: { id: string; clientName: string; status: string }[];
  lastFeed: { feedId: string; createdAt: string; outcome: string } | null;
}

/** One office as listOffices reads it: its listing counts, settings, keys and newest feed (null without one). */
type ListedOffice = {
  office: string;
  total: number;
  public: number;
  /** Null when the office has no settings row. */
  lead_email: string | null;
  lead_delivery: Row.OfficeSettings['lead_delivery'] | null;
  drop_settings: boolean;
  keys: OfficeRow['keys'];
} & ({ feed_id: string; feed_at: Date; feed_outcome: Row.FeedEvent['outcome'] } | { feed_id: null; feed_at: null; feed_outcome: null });

export type OfficeSort = 'office' | '-office' | 'listings' | '-listings' | 'lastFeed' | '-lastFeed';

const ORDER: Record<OfficeSort, string> = {
  office: 'n.office ASC',
  '-office': 'n.office DESC',
  listings: 'coalesce(c.total, 0) ASC, n.office ASC',
  '-listings': 'coalesce(c.total, 0) DESC, n.office ASC',
  lastFeed: 'f.created_at ASC NULLS FIRST, n.office ASC',
  '-lastFeed': 'f.created_at DESC NULLS LAST, n.office ASC',
};

/**
 * Every office the service knows of (named by a listing, a feed key, a lead email or drop
 * settings): its listings (all and public), lead email, whether drop settings were saved, the keys
 * that cover it and its newest feed. Filtered by a substring of the office id; sorted and paged.
 */
export async function listOffices(
  db: Knex,
  query: { q?: string; sort: OfficeSort; limit: number; offset: number },
): Promise<{ total: number; offices: OfficeRow[]; nextOffset: number | null }> {
  const filter = query.q ? `WHERE n.office ILIKE ? ESCAPE '\\'` : '';
  const pattern = query.q ? [`%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`] : [];
  const names = `
    WITH n AS (
      SELECT office FROM listings GROUP BY office
      UNION SELECT unnest(office_ids) FROM feed_keys
      UNION SELECT office FROM office_settings
      UNION SELECT office FROM office_drop_settings
    )`;
  const rows = (
    await db.raw(
      `${names},
      c AS (SELECT office, count(*)::int AS total, (count(*) FILTER (WHERE is_public))::int AS public FROM listings GROUP BY office)
      SELECT n.office, coalesce(c.total, 0) AS total, coalesce(c.public, 0) AS public, s.lead_email, s.lead_delivery,
        (d.office IS NOT NULL) AS drop_settings,
        (SELECT coalesce(json_agg(json_build_object('id', k.id, 'clientName', k.client_name, 'status', k.status) ORDER BY k.created_at), '[]')
           FROM feed_keys k WHERE n.office = ANY(k.office_ids)) AS keys,
        f.id AS feed_id, f.created_at AS feed_at, f.outcome AS feed_outcome
      FROM n
      LEFT JOIN c ON c.office = n.office
      LEFT JOIN office_settings s ON s.office = n.office
      LEFT JOIN office_drop_settings d ON d.office = n.office
      LEFT JOIN LATERAL (
        SELECT id, created_at, outcome FROM feed_events e WHERE n.office = ANY(e.office_scope) ORDER BY created_at DESC LIMIT 1
      ) f ON true
      ${filter}
      ORDER BY ${ORDER[query.sort]}
      LIMIT ? OFFSET ?`,
      [...pattern, query.limit, query.offset],
    )
  ).rows;
  const [{ n }] = (await db.raw(`${names} SELECT count(*)::int AS n FROM n ${filter}`, pattern)).rows;
  return {
    total: n,
    offices: rows.map((r: ListedOffice) => ({
      office: r.office,
      listings: { total: r.total, public: r.public },
      leadEmail: r.lead_email ?? null,
      leadDelivery: r.lead_delivery ?? DEFAULT_LEAD_DELIVERY,
      dropSettings: r.drop_settings,
      keys: r.keys,
      lastFeed: r.feed_id ? { feedId: r.feed_id, createdAt: new Date(r.feed_at).toISOString(), outcome: r.feed_outcome } : null,
    })),
    nextOffset: nextOffsetOf(query.offset, rows.length, n),
  };
}
