import type { Knex } from 'knex';
import { listingKey } from '../pipeline/listing-key.js';

/**
 * Enquiry counts for a listing's owner (docs/leads.md, Enquiry counts): every lead the service took
 * counts, whatever became of its delivery, purged ones included (a count holds no personal data).
 * Days are UTC calendar days.
 */

/** A listing's enquiries in the last 7 and 30 days (rolling, up to now). */
export async function listingEnquiryCounts(db: Knex, office: string, uniqueId: string): Promise<{ last7Days: number; last30Days: number }> {
  const { rows } = await db.raw(
    `SELECT count(*) FILTER (WHERE created_at >= now() - interval '7 days')::int AS d7, count(*)::int AS d30
       FROM leads WHERE office = ? AND unique_id = ? AND created_at >= now() - interval '30 days'`,
    [office, uniqueId],
  );
  return { last7Days: rows[0].d7, last30Days: rows[0].d30 };
}

export interface EnquiryStatsQuery {
  offices: string[];
  /** First and last UTC day, inclusive (YYYY-MM-DD). */
  from: string;
  to: string;
  /** At most this many listings, those with the most enquiries first. */
  listingLimit: number;
}

export interface EnquiryStats {
  from: string;
  to: string;
  total: number;
  offices: { office: string; total: number; days: { day: string; enquiries: number }[] }[];
  listings: { office: string; uniqueId: string; listingKey: string; total: number; days: { day: string; enquiries: number }[] }[];
  listingsTruncated: boolean;
}

/**
 * Daily enquiry counts for the given offices between two UTC days: per office every day of the
 * range (zeros included, so it charts as it is), per listing the days it had enquiries, listings
 * with the most enquiries first. One grouped scan of the leads index (office, created_at).
 */
export async function enquiryStats(db: Knex, query: EnquiryStatsQuery): Promise<EnquiryStats> {
  const { rows } = await db.raw(
    `SELECT office, unique_id, to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, count(*)::int AS n
       FROM leads
      WHERE office = ANY(?::text[]) AND created_at >= (?::date AT TIME ZONE 'UTC') AND created_at < ((?::date + 1) AT TIME ZONE 'UTC')
      GROUP BY office, unique_id, day`,
    [query.offices, query.from, query.to],
  );
  const days = dayRange(query.from, query.to);
  const offices = new Map<string, Map<string, number>>(query.offices.map((o) => [o, new Map()]));
  const listings = new Map<string, { office: string; uniqueId: string; total: number; days: Map<string, number> }>();
  let total = 0;
  for (const r of rows as { office: string; unique_id: string; day: string; n: number }[]) {
    total += r.n;
    const byDay = offices.get(r.office);
    byDay?.set(r.day, (byDay.get(r.day) ?? 0) + r.n);
    const key = listingKey(r.office, r.unique_id);
    const listing = listings.get(key) ?? { office: r.office, uniqueId: r.unique_id, total: 0, days: new Map() };
    listing.total += r.n;
    listing.days.set(r.day, r.n);
    listings.set(key, listing);
  }
  const ranked = [...listings.entries()].sort(([ka, a], [kb, b]) => b.total - a.total || (ka < kb ? -1 : 1));
  return {
    from: query.from,
    to: query.to,
    total,
    offices: [...offices.entries()].map(([office, byDay]) => ({
      office,
      total: [...byDay.values()].reduce((a, b) => a + b, 0),
      days: days.map((day) => ({ day, enquiries: byDay.get(day) ?? 0 })),
    })),
    listings: ranked.slice(0, query.listingLimit).map(([listingKey, l]) => ({
      office: l.office,
      uniqueId: l.uniqueId,
      listingKey,
      total: l.total,
      days: [...l.days.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, enquiries]) => ({ day, enquiries })),
    })),
    listingsTruncated: ranked.length > query.listingLimit,
  };
}

/** Every UTC day from `from` to `to`, inclusive. */
function dayRange(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}
