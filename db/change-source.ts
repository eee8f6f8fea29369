import type { Knex } from 'knex';

/**
 * Names what makes the changes of the rest of this transaction (`feed:<id>`, `operator`): the change
 * log's triggers record it with each row (change_log.source), and the change webhooks carry the
 * feed's id from it. Transaction-local: outside a transaction it lasts one statement.
 */
export async function markChangeSource(trx: Knex, source: string): Promise<void> {
  await trx.raw("SELECT set_config('listings.change_source', ?, true)", [source]);
}

/** The feed id of a change_log.source, when a feed made the change. */
export const feedOfSource = (source: string | null): string | null => (source?.startsWith('feed:') ? source.slice('feed:'.length) : null);
