import type { Knex } from 'knex';

/**
 * Persisting ingestion (docs/architecture.md, Ingestion): feed keys, feed events with their raw bytes in chunks,
 * quarantine items for circuit-breaker trips, and the notification outbox.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('feed_keys', (t) => {
    t.uuid('id').primary();
    t.text('key_hash').notNullable().unique();
    t.text('client_name').notNullable();
    t.text('alert_email').notNullable();
    t.specificType('office_ids', 'text[]').notNullable();
    t.text('status').notNullable().checkIn(['suspended', 'active', 'revoked']);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('approved_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
  });

  await knex.schema.createTable('feed_events', (t) => {
    t.uuid('id').primary();
    t.text('source').notNullable().checkIn(['api', 'sftp']);
    t.uuid('key_id').references('feed_keys.id');
    t.specificType('office_scope', 'text[]').notNullable();
    t.text('alert_email');
    t.text('format').notNullable();
    t.text('mode').notNullable().checkIn(['full', 'incremental']);
    t.jsonb('context').notNullable();
    /** text: UTF-8 of a string carried in JSON; bytes: the raw body, its encoding sniffed from the XML declaration. */
    t.text('body_kind').notNullable().checkIn(['text', 'bytes']);
    t.bigInteger('body_bytes').notNullable();
    t.text('body_sha256').notNullable();
    t.text('status').notNullable().checkIn(['queued', 'running', 'done', 'failed', 'rejected']);
    t.integer('attempts').notNullable().defaultTo(0);
    t.jsonb('result');
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.index(['status', 'updated_at'], 'feed_events_status_updated_idx');
    t.index(['created_at'], 'feed_events_created_idx');
  });

  await knex.schema.createTable('feed_event_chunks', (t) => {
    t.uuid('feed_id').notNullable().references('feed_events.id').onDelete('CASCADE');
    t.integer('seq').notNullable();
    t.binary('data').notNullable();
    t.primary(['feed_id', 'seq']);
  });

  await knex.schema.createTable('quarantine_items', (t) => {
    t.uuid('id').primary();
    t.uuid('feed_id').notNullable().references('feed_events.id');
    t.text('office').notNullable();
    t.integer('archive_count').notNullable();
    t.integer('active_count').notNullable();
    t.jsonb('keys').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('resolved_at', { useTz: true });
    t.text('resolution');
    t.integer('applied_count');
    t.index(['resolved_at', 'created_at'], 'quarantine_open_idx');
  });

  await knex.schema.createTable('notifications', (t) => {
    t.uuid('id').primary();
    t.text('recipient').notNullable();
    t.text('kind').notNullable();
    /** At most one notification per key (or office) and kind per hour: `<who>|<kind>|<hour>`. */
    t.text('dedupe_key').notNullable().unique();
    t.text('subject').notNullable();
    t.text('body').notNullable();
    t.text('status').notNullable().defaultTo('pending').checkIn(['pending', 'sent', 'failed']);
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('sent_at', { useTz: true });
    t.index(['status', 'created_at'], 'notifications_pending_idx');
  });

  await knex.schema.alterTable('listings', (t) => {
    t.index(['office', 'status'], 'listings_office_status_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('listings', (t) => t.dropIndex(['office', 'status'], 'listings_office_status_idx'));
  await knex.schema.dropTable('notifications');
  await knex.schema.dropTable('quarantine_items');
  await knex.schema.dropTable('feed_event_chunks');
  await knex.schema.dropTable('feed_events');
  await knex.schema.dropTable('feed_keys');
}
