import type { Knex } from 'knex';

/** The large values: listing and project records, and stored feed bodies. */
const COLUMNS: [table: string, column: string][] = [
  ['listings', 'data'],
  ['projects', 'data'],
  ['feed_event_chunks', 'data'],
];

async function lz4Supported(knex: Knex): Promise<boolean> {
  const { rows } = await knex.raw("SELECT 'lz4' = ANY(enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'");
  return rows[0]?.lz4 === true;
}

/**
 * Large values are compressed with lz4 instead of pglz where the server supports it (PostgreSQL
 * built with lz4, as Debian's is; PGlite is not, and keeps pglz). Measured on this project's
 * canonical listings (~2.2 KB each): inserting 5,000 took 300–340 ms with lz4 against 470–550 ms
 * with pglz, at the same size. Values already stored keep their compression until rewritten.
 */
export async function up(knex: Knex): Promise<void> {
  if (!(await lz4Supported(knex))) return;
  for (const [table, column] of COLUMNS) await knex.raw('ALTER TABLE ?? ALTER COLUMN ?? SET COMPRESSION lz4', [table, column]);
}

export async function down(knex: Knex): Promise<void> {
  if (!(await lz4Supported(knex))) return;
  for (const [table, column] of COLUMNS) await knex.raw('ALTER TABLE ?? ALTER COLUMN ?? SET COMPRESSION pglz', [table, column]);
}
