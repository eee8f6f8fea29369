import type { Knex } from 'knex';

/**
 * Leads for the CRM (docs/leads.md, For the CRM): each lead records the transaction that wrote it
 * (`txid`), so a key's incremental pull (GET /v1/leads?since=) can ask for exactly the leads
 * its last answer's snapshot could not see: a lead whose transaction began first but committed
 * last is neither skipped nor seen twice. A webhook delivery of lead.created names its lead. A
 * CRM acknowledges a lead it took in (POST /v1/leads/{id}/ack): when, and with which key.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE leads ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id()');
  await knex.raw('ALTER TABLE leads ADD COLUMN acknowledged_at timestamptz, ADD COLUMN acknowledged_by uuid');
  await knex.raw('CREATE INDEX leads_office_created_idx ON leads (office, created_at DESC, id DESC)');
  await knex.raw('ALTER TABLE webhook_deliveries ADD COLUMN lead_id uuid');
  await knex.raw('CREATE INDEX webhook_deliveries_lead_idx ON webhook_deliveries (lead_id) WHERE lead_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX webhook_deliveries_lead_idx');
  await knex.raw('ALTER TABLE webhook_deliveries DROP COLUMN lead_id');
  await knex.raw('DROP INDEX leads_office_created_idx');
  await knex.raw('ALTER TABLE leads DROP COLUMN txid, DROP COLUMN acknowledged_at, DROP COLUMN acknowledged_by');
}
