import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Mail, Mailer } from '../lib/mailer.js';
import { countAlertDay } from './alert-subscriptions.js';
import type { Db } from './knex.js';

export type NotificationKind = 'feed_not_well_formed' | 'invalid_listings' | 'circuit_breaker' | 'feed_failed' | 'webhook_disabled';

/**
 * Queues a feed-failure notification (the outbox: a row, sent by sendPendingNotifications).
 * At most one per sender (key or office) and kind per hour; later ones in the hour are dropped.
 */
export async function queueNotification(
  db: Knex,
  input: { sender: string; recipient: string; kind: NotificationKind; subject: string; body: string; at?: Date },
): Promise<boolean> {
  const hour = (input.at ?? new Date()).toISOString().slice(0, 13);
  const inserted = await db('notifications')
    .insert({
      id: randomUUID(),
      recipient: input.recipient,
      kind: input.kind,
      dedupe_key: `${input.sender}|${input.kind}|${hour}`,
      subject: input.subject,
      body: input.body,
    })
    .onConflict('dedupe_key')
    .ignore()
    .returning('id');
  return inserted.length > 0;
}

const MAX_ATTEMPTS = 5;

/** An outbox row as the sender reads it. */
export interface OutboxRow {
  id: string;
  recipient: string;
  kind: string;
  subject: string;
  body: string;
  html: string | null;
  headers: Record<string, string> | null;
  subscription_id: string | null;
  attempts: number;
}

/**
 * Makes the mail of a row that is written when it goes rather than when it was queued (an alert:
 * its listings as they are then). Null: nothing left to send (the row is marked skipped).
 */
export type RenderAtSend = (trx: Knex.Transaction, row: OutboxRow) => Promise<Mail | null>;

/** The mail of a row queued with its content. */
const storedMail = (row: OutboxRow): Mail => ({
  to: row.recipient,
  subject: row.subject,
  text: row.body,
  ...(row.html ? { html: row.html } : {}),
  ...(row.headers ? { headers: row.headers } : {}),
  messageId: `<${row.id}@outbox.listing-service>`,
});

/**
 * Sends what is pending, oldest first. Each row is claimed under a row lock (SKIP LOCKED) so
 * several processes can sweep at once without sending twice; a failed send is retried on a
 * later sweep up to MAX_ATTEMPTS. Alert rows (kind 'alert') are written by `renderAlert` as
 * they go; without it they wait.
 */
export async function sendPendingNotifications(db: Db, mailer: Mailer, limit = 20, renderAlert?: RenderAtSend): Promise<{ sent: number; failed: number }> {
  let sent = 0;
  let failed = 0;
  for (let i = 0; i < limit; i += 1) {
    const done = await db.transaction(async (trx) => {
      const q = trx('notifications').where({ status: 'pending' }).orderBy('created_at').forUpdate().skipLocked();
      if (!renderAlert) q.whereNot({ kind: 'alert' });
      const row: OutboxRow | undefined = await q.first();
      if (!row) return false;
      try {
        const mail = row.kind === 'alert' && renderAlert ? await renderAlert(trx, row) : storedMail(row);
        if (!mail) {
          await trx('notifications').where({ id: row.id }).update({ status: 'skipped', sent_at: trx.fn.now() });
          return true;
        }
        await mailer.send(mail);
        await trx('notifications')
          .where({ id: row.id })
          .update({ status: 'sent', sent_at: trx.fn.now(), attempts: row.attempts + 1 });
        if (row.kind === 'alert') await countAlertDay(trx, { sent: 1 });
        sent += 1;
      } catch (err) {
        const attempts = row.attempts + 1;
        await trx('notifications')
          .where({ id: row.id })
          .update({ status: attempts >= MAX_ATTEMPTS ? 'failed' : 'pending', attempts, last_error: String((err as Error).message) });
        failed += 1;
        if (attempts < MAX_ATTEMPTS) return false; // leave it for the next sweep
      }
      return true;
    });
    if (!done) break;
  }
  return { sent, failed };
}
