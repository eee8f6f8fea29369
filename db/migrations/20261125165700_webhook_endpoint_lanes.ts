import type { Knex } from 'knex';

/**
 * Fair webhook delivery: each endpoint is one lane, sent to by one worker at a time, and its
 * backlog waits here rather than in the shared queue (docs/ingestion-internals.md, Webhook
 * deliveries). On webhook_endpoints: `sending_until`, the lease of the worker sending to it now;
 * `failures_in_row` and `next_send_at`, the pause after failed attempts, growing while every
 * attempt fails and cleared by a success. The partial index serves the lane's "first pending
 * delivery in order" and the sweep's "which endpoints have one due".
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE webhook_endpoints
      ADD COLUMN sending_until timestamptz,
      ADD COLUMN next_send_at timestamptz,
      ADD COLUMN failures_in_row integer NOT NULL DEFAULT 0`);
  await knex.raw("CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (endpoint_id, seq) WHERE status = 'pending'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX webhook_deliveries_pending_idx');
  await knex.raw('ALTER TABLE webhook_endpoints DROP COLUMN sending_until, DROP COLUMN next_send_at, DROP COLUMN failures_in_row');
}
