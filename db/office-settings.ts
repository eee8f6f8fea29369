import type { Knex } from 'knex';
import type { LeadDelivery } from './leads.js';

/** What an operator sets for an office: where its leads go (docs/leads.md). */
export interface OfficeSettingsChange {
  /** Where leads go when no listing agent has an email; null clears it. */
  leadEmail?: string | null;
  /** How its leads are delivered: email, crm or both. */
  leadDelivery?: LeadDelivery;
}

/** Saves the settings given; those left out keep their value. Returns the office's settings now. */
export async function setOfficeSettings(
  db: Knex,
  office: string,
  change: OfficeSettingsChange,
): Promise<{ leadEmail: string | null; leadDelivery: LeadDelivery }> {
  const values: Record<string, unknown> = {};
  if (change.leadEmail !== undefined) values.lead_email = change.leadEmail;
  if (change.leadDelivery !== undefined) values.lead_delivery = change.leadDelivery;
  const [row] = await db('office_settings')
    .insert({ office, ...values, updated_at: db.fn.now() })
    .onConflict('office')
    .merge([...Object.keys(values), 'updated_at'])
    .returning(['lead_email', 'lead_delivery']);
  return { leadEmail: row.lead_email ?? null, leadDelivery: row.lead_delivery };
}
