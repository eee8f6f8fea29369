import type { Knex } from 'knex';

/**
 * Console sign-in sessions: the queue board's cookie credential. Only a hash of the session secret
 * is stored, with a hash of the operator token it was opened with, so revoking that token (or
 * changing OPERATOR_TOKEN) ends the session at its next request.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('operator_sessions', (t) => {
    t.text('id_hash').primary();
    t.text('actor').notNullable();
    t.text('credential_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('operator_sessions');
}
