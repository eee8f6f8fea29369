import type { Knex } from 'knex';

/** Operators (docs/architecture.md, Operators) and site content (§9): named operator tokens, the audit log, settings, navigation, pages. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('operator_tokens', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable();
    t.text('token_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
  });
  await knex.raw('CREATE UNIQUE INDEX operator_tokens_active_name ON operator_tokens (name) WHERE revoked_at IS NULL');

  await knex.schema.createTable('audit_log', (t) => {
    t.bigIncrements('id').primary();
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    /** `bootstrap` (OPERATOR_TOKEN), `token:<name>`, or `command:<name>` for project commands. */
    t.text('actor').notNullable();
    t.text('action').notNullable();
    t.text('target');
    t.jsonb('details');
    t.index(['at'], 'audit_log_at_idx');
  });

  await knex.schema.createTable('site_settings', (t) => {
    t.text('key').primary();
    t.jsonb('value').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('site_navigation', (t) => {
    t.integer('id').primary();
    /** null: the default navigation. */
    t.jsonb('links');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('site_pages', (t) => {
    t.uuid('id').primary();
    t.text('slug').notNullable().unique();
    t.jsonb('title').notNullable();
    t.jsonb('body').notNullable();
    t.jsonb('description');
    t.boolean('published').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['site_pages', 'site_navigation', 'site_settings', 'audit_log', 'operator_tokens']) await knex.schema.dropTable(table);
}
