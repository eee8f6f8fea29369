import type { Knex } from 'knex';

/**
 * Lead delivery paths (docs/leads.md, Delivery by office): each office chooses how its leads are
 * delivered (email, crm or both; both by default, as before the choice existed). A lead keeps the
 * choice it was taken under (`delivery`). On CRM delivery its mail waits (`awaiting_crm`) until
 * `fallback_at`; a CRM acknowledgement before then settles it (`crm_acknowledged`), otherwise the
 * mail goes as on email delivery, and `fell_back_at` says when it was released.
 */
const OLD = ['pending', 'sending', 'delivered', 'failed', 'purged', 'dead_letter'];
const NEW = [...OLD, 'awaiting_crm', 'crm_acknowledged'];
const inList = (values: string[]) => values.map((v) => `'${v}'`).join(', ');

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE office_settings ADD COLUMN lead_delivery text NOT NULL DEFAULT 'both' CHECK (lead_delivery IN ('email', 'crm', 'both'))`);
  await knex.raw('ALTER TABLE leads DROP CONSTRAINT leads_status_check');
  await knex.raw(`ALTER TABLE leads ADD CONSTRAINT leads_status_check CHECK (status IN (${inList(NEW)}))`);
  await knex.raw(`ALTER TABLE leads ADD COLUMN delivery text NOT NULL DEFAULT 'both' CHECK (delivery IN ('email', 'crm', 'both'))`);
  await knex.raw('ALTER TABLE leads ADD COLUMN fallback_at timestamptz, ADD COLUMN fell_back_at timestamptz');
  await knex.raw(`CREATE INDEX leads_awaiting_crm_idx ON leads (fallback_at) WHERE status = 'awaiting_crm'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX leads_awaiting_crm_idx');
  await knex.raw('ALTER TABLE leads DROP COLUMN delivery, DROP COLUMN fallback_at, DROP COLUMN fell_back_at');
  await knex.raw(`UPDATE leads SET status = 'delivered' WHERE status = 'crm_acknowledged'`);
  await knex.raw(`UPDATE leads SET status = 'pending' WHERE status = 'awaiting_crm'`);
  await knex.raw('ALTER TABLE leads DROP CONSTRAINT leads_status_check');
  await knex.raw(`ALTER TABLE leads ADD CONSTRAINT leads_status_check CHECK (status IN (${inList(OLD)}))`);
  await knex.raw('ALTER TABLE office_settings DROP COLUMN lead_delivery');
}
