import type { Knex } from 'knex';
import { type DropSettings, defaultDropSettings, storedDropSettings } from './office-drops.js';

export interface OfficeOverview {
  office: string;
  /** Where enquiries go when no agent of the listing has an email; null when none is set. */
  leadEmail: string | null;
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
    db('office_settings').where({ office }).first('lead_email'),
    storedDropSettings(db, office),
    db('listings').where({ office }).select('status').count({ n: '*' }).groupBy('status'),
    db('feed_keys').whereRaw('? = ANY(office_ids)', [office]).orderBy('created_at').select('id', 'client_name', 'status'),
  ]);
  if (!lead && !stored && statuses.length === 0 && keys.length === 0) return null;
  return {
    office,
    leadEmail: lead?.lead_email ?? null,
    dropSettings: stored ?? defaultDropSettings(office),
    listingsByStatus: Object.fromEntries(statuses.map((r: any) => [r.status, Number(r.n)])),
    keys: keys.map((k: any) => ({ id: k.id, clientName: k.client_name, status: k.status })),
  };
}
