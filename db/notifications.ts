import { randomUUID } from 'node:crypto';
import type { Mailer } from '../lib/mailer.js';
import type { Db } from './knex.js';

export type NotificationKind = 'feed_not_well_formed' | 'invalid_listings' | 'circuit_breaker' | 'feed_failed' | 'webhook_disabled';

/**
 * Queues a feed-failure notification (the outbox: a row, sent by sendPendingNotifications).
 * At most one per sender (key or office) and kind per hour; later ones in the hour are dropped.
 */
export async function queueNotification(
  db: Db,
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

/**
 * Sends what is pending, oldest first. Each row is claimed under a row lock (SKIP LOCKED) so
 * several processes can sweep at once without sending twice; a failed send is retried on a
 * later sweep up to MAX_ATTEMPTS.
 */
export async function sendPendingNotifications(db: Db, mailer: Mailer, limit = 20): Promise<{ sent: number; failed: number }> {
  let sent = 0;
  let failed = 0;
  for (let i = 0; i < limit; i += 1) {
    const done = await db.transaction(async (trx) => {
      const row = await trx('notifications').where({ status: 'pending' }).orderBy('created_at').forUpdate().skipLocked().first();
      if (!row) return false;
      try {
        await mailer.send({ to: row.recipient, subject: row.subject, text: row.body });
        await trx('notifications')
          .where({ id: row.id })
          .update({ status: 'sent', sent_at: trx.fn.now(), attempts: row.attempts + 1 });
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
