import type { Knex } from 'knex';

/**
 * Idempotent pushes. A push's Idempotency-Key is kept on its feed event, unique per feed key: the
 * same key and request within 24 hours is answered with the first feed, another request under it
 * is refused. The second index finds a feed of the same key with the same body still queued or
 * running, which a push without the header is answered with.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('feed_events', (t) => t.text('idempotency_key'));
  await knex.raw('CREATE UNIQUE INDEX feed_events_idempotency_idx ON feed_events (key_id, idempotency_key) WHERE idempotency_key IS NOT NULL');
  await knex.raw("CREATE INDEX feed_events_open_body_idx ON feed_events (key_id, body_sha256) WHERE status IN ('queued', 'running')");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX feed_events_open_body_idx');
  await knex.raw('DROP INDEX feed_events_idempotency_idx');
  await knex.schema.alterTable('feed_events', (t) => t.dropColumn('idempotency_key'));
}
