import { composeDueAlerts } from '../../db/alert-mails.js';
import { type AlertChange, alertReasonOf, matchChanges } from '../../db/alert-matching.js';
import { moveCursor, type PassingReader, readAfterCursor } from '../../db/change-log.js';
import type { Db } from '../../db/knex.js';

/** The change log reader's name (change_log_cursors). */
export const ALERT_CURSOR = 'alerts';
/** Log rows read per transaction: a batch's memory is bounded by it (bench/alerts matches batches of this size). */
export const ROWS_PER_RUN = 2_000;

/**
 * The alerts' reader as the change log's numbering lets it pass over rows (db/change-log.ts,
 * sequenceChangesPassing): the kinds alertReasonOf may find worth an alert, and whether any saved
 * search is confirmed (none: nothing can match). A test holds the kinds to alertReasonOf.
 */
export const ALERT_READER: PassingReader = {
  name: ALERT_CURSOR,
  rows: ROWS_PER_RUN,
  kinds: ['Property:published', 'Property:price_changed', 'Property:status_changed', 'Property:shown'],
  consumers: `SELECT EXISTS (SELECT 1 FROM alert_subscriptions WHERE status = 'confirmed')`,
};

/**
 * Matches the change log's new listings, price drops and returns to the market against confirmed
 * saved searches (db/alert-matching.ts), recording the matches in the same transaction that moves
 * the alerts' cursor: a worker that dies loses nothing, and a change is matched once. Returns how
 * many changes worth an alert were read.
 */
export async function matchAlertChanges(db: Db): Promise<number> {
  let worth = 0;
  for (;;) {
    const read = await db.transaction(async (trx) => {
      const changes = await readAfterCursor(trx, ALERT_CURSOR, ROWS_PER_RUN);
      if (changes.length === 0) return 0;
      const alerts: AlertChange[] = [];
      for (const c of changes) {
        const reason = alertReasonOf(c);
        if (reason) alerts.push({ seq: c.seq, listingKey: c.recordKey, reason, at: c.sequencedAt });
      }
      await matchChanges(trx, alerts);
      await moveCursor(trx, ALERT_CURSOR, changes.at(-1)!.seq);
      worth += alerts.length;
      return changes.length;
    });
    if (read < ROWS_PER_RUN) return worth;
  }
}

/**
 * One turn of the alerts: match what changed, then queue the mails that are due. `afterChanges`: a
 * turn that follows a numbering of the change log looks for due mails only when it matched
 * something that is due at once (no hold): with a hold, nothing it matched is due yet, and what
 * fell due meanwhile is the maintenance task's (every 5 s), so a push does not pay for the look.
 */
export async function runAlerts(db: Db, holdMs: number, options: { afterChanges?: boolean } = {}): Promise<{ matched: number; mails: number }> {
  const matched = await matchAlertChanges(db);
  const mails = !options.afterChanges || (holdMs === 0 && matched > 0) ? await composeDueAlerts(db, holdMs) : 0;
  return { matched, mails };
}
