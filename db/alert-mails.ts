import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { uniqueIdOfKey } from '../pipeline/listing-key.js';
import { nextDigestSql } from './alert-subscriptions.js';
import { publicField } from './search-columns.js';

/**
 * Alert mails in the outbox (notifications): which subscriptions have a mail due, the outbox rows
 * that carry their matches, and what a mail says when it goes (docs/alerts.md, Sending).
 */

/** Listings one alert mail shows; it says how many more matched. */
export const LISTINGS_PER_MAIL = 20;

/** Subscriptions composed per statement: what one pass holds in memory is bounded by it. */
const COMPOSE_PAGE = 500;

/**
 * Puts one outbox row per subscription whose mail is due over its waiting matches: instant ones
 * whose oldest waiting match is `holdMs` old (a feed's changes arrive in several commits within
 * seconds: they go in one mail), daily ones at their digest time (which then moves to the next
 * day, a mail or not). Subscriptions locked by another composer are left to it. Returns how many
 * mails were queued.
 */
export async function composeDueAlerts(db: Knex, holdMs: number): Promise<number> {
  let queued = 0;
  for (;;) {
    const instant: string[] = (
      await db.raw(
        `SELECT m.subscription_id FROM alert_matches m JOIN alert_subscriptions s ON s.id = m.subscription_id
          WHERE m.notification_id IS NULL AND NOT m.skipped AND s.status = 'confirmed' AND s.frequency = 'instant'
          GROUP BY m.subscription_id HAVING min(m.matched_at) <= now() - make_interval(secs => ?::float8 / 1000) LIMIT ?`,
        [holdMs, COMPOSE_PAGE],
      )
    ).rows.map((r: { subscription_id: string }) => r.subscription_id);
    const daily: string[] = (
      await db.raw(
        `SELECT id FROM alert_subscriptions WHERE frequency = 'daily' AND status = 'confirmed' AND next_digest_at <= now() ORDER BY next_digest_at LIMIT ?`,
        [COMPOSE_PAGE],
      )
    ).rows.map((r: { id: string }) => r.id);
    if (instant.length === 0 && daily.length === 0) return queued;
    queued += await db.transaction(async (trx) => {
      const { rows } = await trx.raw(
        `WITH due AS (
           SELECT s.id, s.email FROM alert_subscriptions s WHERE s.id = ANY(?::uuid[]) AND s.status = 'confirmed' FOR UPDATE SKIP LOCKED
         ), mail AS (
           SELECT d.id AS subscription_id, d.email, gen_random_uuid() AS notification_id FROM due d
            WHERE EXISTS (SELECT 1 FROM alert_matches m WHERE m.subscription_id = d.id AND m.notification_id IS NULL AND NOT m.skipped)
         ), marked AS (
           UPDATE alert_matches m SET notification_id = mail.notification_id FROM mail
            WHERE m.subscription_id = mail.subscription_id AND m.notification_id IS NULL AND NOT m.skipped RETURNING 1
         ), queued AS (
           INSERT INTO notifications (id, recipient, kind, dedupe_key, subject, body, subscription_id)
           SELECT notification_id, email, 'alert', 'alert|' || notification_id, '', '', subscription_id FROM mail RETURNING subscription_id
         ), moved AS (
           UPDATE alert_subscriptions s SET next_digest_at = CASE WHEN s.frequency = 'daily' THEN ${nextDigestSql('s.time_zone')} ELSE s.next_digest_at END,
                  last_mailed_at = CASE WHEN s.id IN (SELECT subscription_id FROM queued) THEN now() ELSE s.last_mailed_at END
             FROM due WHERE s.id = due.id RETURNING 1
         )
         SELECT (SELECT count(*) FROM queued) AS queued, (SELECT count(*) FROM marked) AS marked, (SELECT count(*) FROM moved) AS moved`,
        [[...instant, ...daily]],
      );
      return Number(rows[0].queued);
    });
    if (instant.length < COMPOSE_PAGE && daily.length < COMPOSE_PAGE) return queued;
  }
}

/** A listing as an alert shows it: its public form only. */
export interface AlertListing {
  listingKey: string;
  office: string;
  uniqueId: string;
  headline: Record<string, string> | string | null;
  displayPrice: string | null;
  addressLine: string | null;
  locality: string | null;
  heroImageUrl: string | null;
  reasons: string[];
  /** For a price drop: the public price before it (amount, currency). */
  previousPrice: { amount: number; currency?: string; period?: string } | null;
}

/** What an alert mail carries when it goes: the subscription and its matched listings still public (newest change first). */
export interface AlertMailContent {
  subscription: { id: string; email: string; token: string; frequency: string; search: Record<string, string>; confirmedAt: string };
  listings: AlertListing[];
  /** Listings still public among the mail's matches, shown or not. */
  total: number;
}

interface AlertListingRow {
  listing_key: string;
  office: string;
  headline: AlertListing['headline'];
  display_price: string | null;
  address_line: string | null;
  locality: string | null;
  hero_image: string | null;
  reasons: string[];
  previous_price: AlertListing['previousPrice'];
}

/** The content of an alert outbox row as of now; null when its subscription is gone or none of its listings is public any more. */
export async function alertMailContent(trx: Knex, notificationId: string, subscriptionId: string): Promise<AlertMailContent | null> {
  const sub = await trx('alert_subscriptions').where({ id: subscriptionId }).first('id', 'email', 'token', 'frequency', 'search', 'confirmed_at');
  if (!sub) return null;
  const { rows } = await trx.raw(
    `SELECT l.listing_key, l.office, ${publicField('headline')} AS headline, ${publicField('displayPrice')} #>> '{}' AS display_price,
            ${publicField('addressLine')} #>> '{}' AS address_line, ${publicField('address')}->>'locality' AS locality, ${publicField('heroImage')}->>'url' AS hero_image,
            array_agg(DISTINCT m.reason) AS reasons,
            (array_agg(c.old_price ORDER BY m.seq) FILTER (WHERE m.reason = 'price_drop' AND c.old_price IS NOT NULL))[1] AS previous_price,
            count(*) OVER () AS total
       FROM alert_matches m
       JOIN listings l ON l.listing_key = m.listing_key AND l.is_public
       LEFT JOIN change_log c ON c.seq = m.seq AND m.reason = 'price_drop'
      WHERE m.notification_id = ?
      GROUP BY l.listing_key, l.office, l.data, l.public_patch
      ORDER BY max(m.seq) DESC
      LIMIT ?`,
    [notificationId, LISTINGS_PER_MAIL],
  );
  if (rows.length === 0) return null;
  return {
    subscription: {
      id: sub.id,
      email: sub.email,
      token: sub.token,
      frequency: sub.frequency,
      search: sub.search,
      confirmedAt: new Date(sub.confirmed_at).toISOString(),
    },
    total: Number(rows[0].total),
    listings: (rows as AlertListingRow[]).map((r) => ({
      listingKey: r.listing_key,
      office: r.office,
      uniqueId: uniqueIdOfKey(r.listing_key),
      headline: r.headline,
      displayPrice: r.display_price,
      addressLine: r.address_line,
      locality: r.locality,
      heroImageUrl: r.hero_image,
      reasons: r.reasons,
      previousPrice: r.previous_price,
    })),
  };
}

/** Queues a subscription's confirmation mail (sent by the outbox sweep; deleted with the subscription). */
export async function queueConfirmation(db: Knex, subscriptionId: string, mail: { to: string; subject: string; text: string; html: string }): Promise<void> {
  const id = randomUUID();
  await db('notifications').insert({
    id,
    recipient: mail.to,
    kind: 'alert_confirm',
    dedupe_key: `alert_confirm|${id}`,
    subject: mail.subject,
    body: mail.text,
    html: mail.html,
    subscription_id: subscriptionId,
  });
}
