import type { Knex } from 'knex';

/**
 * A webhook endpoint's earlier secrets, each signing beside the current one until its own grace
 * ends: `previous_secrets` is a JSON array of `{ secret, until }`, newest first, replacing the one
 * previous_secret (which a second rotation overwrote, ending the first secret's grace at once).
 * db/webhooks.ts, rotateSecret.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw("ALTER TABLE webhook_endpoints ADD COLUMN previous_secrets jsonb NOT NULL DEFAULT '[]'");
  await knex.raw(`
    UPDATE webhook_endpoints
       SET previous_secrets = jsonb_build_array(jsonb_build_object('secret', previous_secret, 'until', previous_secret_until))
     WHERE previous_secret IS NOT NULL AND previous_secret_until > now()`);
  await knex.raw('ALTER TABLE webhook_endpoints DROP COLUMN previous_secret, DROP COLUMN previous_secret_until');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_endpoints ADD COLUMN previous_secret text, ADD COLUMN previous_secret_until timestamptz');
  await knex.raw(`
    UPDATE webhook_endpoints
       SET previous_secret = previous_secrets->0->>'secret', previous_secret_until = (previous_secrets->0->>'until')::timestamptz
     WHERE jsonb_array_length(previous_secrets) > 0`);
  await knex.raw('ALTER TABLE webhook_endpoints DROP COLUMN previous_secrets');
}
