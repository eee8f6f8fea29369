import type { Knex } from 'knex';

/**
 * RESO Member and Office replicate by ModificationTimestamp like Property (docs/reso.md,
 * Replication): directory_agents gains updated_at, stamped by change_stamp() as listings and
 * directory_offices are (so the commit horizon, db/commit-horizon.ts, holds for them too), and
 * both directory tables get an index in (updated_at, key) order, which answers each page of a
 * replication with a short range scan. Agents already listed are stamped with the migration's
 * time: a replicator's first pass reads them all anyway.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE directory_agents ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now()');
  await knex.raw('ALTER TABLE directory_agents ALTER COLUMN updated_at SET DEFAULT change_stamp()');
  await knex.raw('CREATE INDEX directory_agents_reso_replication_idx ON directory_agents (updated_at, agent_id)');
  await knex.raw('CREATE INDEX directory_offices_reso_replication_idx ON directory_offices (updated_at, office)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX directory_offices_reso_replication_idx');
  await knex.raw('DROP INDEX directory_agents_reso_replication_idx');
  await knex.raw('ALTER TABLE directory_agents DROP COLUMN updated_at');
}
