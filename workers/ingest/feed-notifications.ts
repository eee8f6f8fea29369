import type { FeedEvent } from '../../db/feed-events.js';
import type { Db } from '../../db/knex.js';
import { type NotificationKind, queueNotification } from '../../db/notifications.js';
import type { IngestionResult } from './ingest-feed.js';

const MAX_LISTED = 20;

const senderOf = (event: FeedEvent) => (event.keyId ? `key:${event.keyId}` : `office:${event.officeScope.join(',')}`);
const introOf = (event: FeedEvent) =>
  `Feed ${event.id} (${event.source}, ${event.format}, mode ${event.mode}, received ${event.createdAt}) for ${event.officeScope.join(', ')}`;

/** The mail for a feed the service gave up on after its retries, queued in the outbox. */
export async function notifyFeedGivenUp(db: Db, event: FeedEvent): Promise<boolean> {
  if (!event.alertEmail) return false;
  return queueNotification(db, {
    sender: senderOf(event),
    recipient: event.alertEmail,
    kind: 'feed_failed',
    subject: 'Your listing feed could not be processed',
    body: [
      introOf(event),
      '',
      'The feed was received and stored, but processing it failed several times because of a problem on our side (not in your feed).',
      'Our operators have been told and can run it again; nothing needs resending unless you are asked to.',
      `GET /v1/feeds/${event.id} with your key shows its status.`,
      '',
    ].join('\n'),
  });
}

/** The feed-failure mails (docs/ingestion.md) for one finished feed, queued in the outbox. */
export async function notifyFeedFailures(db: Db, event: FeedEvent, result: IngestionResult): Promise<NotificationKind[]> {
  if (!event.alertEmail) return [];
  const sender = senderOf(event);
  const intro = introOf(event);
  const queued: NotificationKind[] = [];
  const queue = async (kind: NotificationKind, subject: string, lines: string[]) => {
    if (await queueNotification(db, { sender, recipient: event.alertEmail!, kind, subject, body: [intro, '', ...lines, ''].join('\n') })) queued.push(kind);
  };

  const notWellFormed = result.issues.find((i) => i.code === 'feed_not_well_formed');
  if (notWellFormed) {
    await queue('feed_not_well_formed', 'Your listing feed could not be read', [
      `The feed could not be read (${event.format === 'reaxml' ? 'not well-formed XML' : 'not a valid JSON document'}): ${notWellFormed.message}.`,
      'Listings before that point were applied; nothing was archived. Fix the export and send it again.',
    ]);
  }
  if (result.counts.invalid > 0) {
    const errors = result.issues.filter((i) => i.level === 'error' && i.listingIndex !== null);
    await queue('invalid_listings', `${result.counts.invalid} listing(s) in your feed were not stored`, [
      `${result.counts.invalid} of ${result.counts.parsed} listings were invalid and not stored:`,
      ...errors.slice(0, MAX_LISTED).map((i) => `- listing ${i.listingIndex}${i.uniqueId ? ` (${i.uniqueId})` : ''}: ${i.code}: ${i.message} [${i.path}]`),
      ...(errors.length > MAX_LISTED ? [`... and ${errors.length - MAX_LISTED} more; GET /v1/feeds/${event.id} has them all.`] : []),
    ]);
  }
  const tripped = result.reconcile?.offices.filter((o) => o.tripped) ?? [];
  if (tripped.length) {
    await queue('circuit_breaker', 'Your full feed would have removed many listings: held for review', [
      'The mass-delete guard stopped this full feed from archiving listings it did not contain:',
      ...tripped.map((o) => `- office ${o.office}: ${o.absent} of ${o.nonArchived} listings would have been archived (quarantine item ${o.quarantineId})`),
      'Nothing was archived for these offices. If the feed was complete, an operator can apply the archive; otherwise send the full feed again.',
    ]);
  }
  return queued;
}
