import type { Knex } from 'knex';
import { publicProjectPatch } from '../../pipeline/public-view.js';
import type { CanonicalProject } from '../../pipeline/types.js';

/**
 * A project's public patch, as listings have one: a project whose address the developer withholds
 * shows only its locality and a locality point in public answers. Written with the project; here
 * made for the projects already stored that withhold their address.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('projects', (t) => {
    t.jsonb('public_patch');
  });
  const rows: { project_key: string; data: CanonicalProject }[] = await knex('projects')
    .select('project_key', 'data')
    .whereRaw("data->'address'->>'display' = 'false'");
  for (const row of rows) {
    const patch = publicProjectPatch(row.data);
    if (patch)
      await knex('projects')
        .where('project_key', row.project_key)
        .update({ public_patch: JSON.stringify(patch) });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('projects', (t) => {
    t.dropColumn('public_patch');
  });
}
