import type { Knex } from 'knex';

/**
 * SFTP drops (docs/architecture.md, SFTP drops): one row per file content ingested per office (sha256, so the same
 * content is never ingested twice; the row also tells watchers where the claimed file is and which
 * feed it became), and the per-office context an operator sets for dropped feeds.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sftp_files', (t) => {
    t.text('office').notNullable();
    t.text('sha256').notNullable();
    t.text('file_name').notNullable();
    /** The name in processing/ (and then processed/ or failed/). */
    t.text('claim_name').notNullable();
    t.uuid('feed_id').notNullable().references('feed_events.id');
    /** queued: the file waits in processing/ for its feed; moved: it is in processed/ or failed/. */
    t.text('status').notNullable();
    t.text('outcome');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('moved_at', { useTz: true });
    t.primary(['office', 'sha256']);
    t.index(['status', 'office'], 'sftp_files_status_idx');
  });
  await knex.schema.createTable('office_drop_settings', (t) => {
    t.text('office').primary();
    t.text('currency');
    t.text('country');
    t.text('locale');
    t.text('alert_email');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('office_drop_settings');
  await knex.schema.dropTable('sftp_files');
}
