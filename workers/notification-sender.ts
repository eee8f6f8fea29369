import { alertMailContent } from '../db/alert-mails.js';
import { isBlocked } from '../db/blocklist.js';
import type { Db } from '../db/knex.js';
import { type RenderAtSend, sendPendingNotifications } from '../db/notifications.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import type { Mailer } from '../lib/mailer.js';
import { alertLinks, alertMail } from './alerts/alert-mail.js';

/**
 * Sends the notification outbox, 100 mails at a time. Alert mails are written as they go (their
 * listings as they are then, with links to this service's pages; none to a blocked address). Never
 * fails the caller: what is not sent stays in the outbox for the maintenance task.
 */
export function notificationSender(
  db: Db,
  mailer: Mailer,
  config: Pick<Config, 'port' | 'publicBaseUrl' | 'alertListingUrl' | 'leadRetentionDays'>,
  logger: Logger,
): () => Promise<{ sent: number; failed: number }> {
  const links = alertLinks(config);
  const renderAlert: RenderAtSend = async (trx, row) => {
    const content = row.subscription_id ? await alertMailContent(trx, row.id, row.subscription_id) : null;
    if (!content || (await isBlocked(trx, content.subscription.email))) return null;
    return alertMail(content, links, config.leadRetentionDays);
  };
  return () =>
    sendPendingNotifications(db, mailer, 100, renderAlert).catch((err) => {
      logger.warn({ err }, 'sending notifications failed; will retry');
      return { sent: 0, failed: 0 };
    });
}
