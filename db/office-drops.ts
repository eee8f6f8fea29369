import type { Knex } from 'knex';
import { defaultLocaleOf } from '../pipeline/countries.js';
import type { FeedContext } from '../pipeline/types.js';

/** What an operator sets for an office's SFTP drops (PUT /v1/admin/offices/{office}/drop-settings). */
export interface DropSettings {
  office: string;
  /** ISO-4217; null: the listing country's currency, with a warning. */
  currency: string | null;
  /** ISO-3166 alpha-2 fallback country; null: AU. */
  country: string | null;
  /** Locale of the feed text; null: the country's usual one (en-AU for AU). */
  locale: string | null;
  /** Where feed-failure mails for dropped files go; null: none are sent. */
  alertEmail: string | null;
}

/** The office's drop settings as stored, or null when none were ever set. */
export async function storedDropSettings(db: Knex, office: string): Promise<DropSettings | null> {
  const row = await db('office_drop_settings').where({ office }).first();
  return row ? { office, currency: row.currency ?? null, country: row.country ?? null, locale: row.locale ?? null, alertEmail: row.alert_email ?? null } : null;
}

/** Settings that leave everything to the service defaults. */
export const defaultDropSettings = (office: string): DropSettings => ({ office, currency: null, country: null, locale: null, alertEmail: null });

/** The office's drop settings, the defaults when none were set. */
export async function getDropSettings(db: Knex, office: string): Promise<DropSettings> {
  return (await storedDropSettings(db, office)) ?? defaultDropSettings(office);
}

export async function setDropSettings(db: Knex, settings: DropSettings): Promise<void> {
  const { office, currency, country, locale, alertEmail } = settings;
  await db('office_drop_settings').insert({ office, currency, country, locale, alert_email: alertEmail, updated_at: db.fn.now() }).onConflict('office').merge();
}

/** The feed context of a dropped file: the office's settings with the service defaults. */
export function dropContext(settings: DropSettings): FeedContext {
  const defaultCountry = settings.country ?? 'AU';
  return { currency: settings.currency ?? undefined, defaultCountry, sourceLocale: settings.locale ?? defaultLocaleOf(defaultCountry) };
}
