import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { newSecret } from '../lib/secrets.js';
import type { SavedSearchColumns } from './alert-matching.js';
import { iso, isoOrNull } from './row-values.js';

/**
 * Alert subscriptions: saved searches a consumer asked to be mailed about (docs/alerts.md). A
 * subscription is pending until its address confirms through the link mailed to it; its one
 * token (in every link mailed to the address) confirms, unsubscribes and lists the address's
 * subscriptions. Nothing here ever tells a caller whether an address has subscriptions.
 */

export type AlertFrequency = 'instant' | 'daily';

/** A pending subscription not confirmed within this long expires. */
export const CONFIRM_WITHIN_HOURS = 48;
/**
 * Confirmation mails an address's unconfirmed requests may have had, at most: past it a request is
 * answered the same and mails nothing, until one is confirmed or expires (CONFIRM_WITHIN_HOURS). So
 * nobody can make the service mail an address that never asked more than this.
 */
export const CONFIRM_MAILS_WAITING = 3;
/** Subscriptions (pending or confirmed) one address may have. */
export const SUBSCRIPTIONS_PER_ADDRESS = 25;
/** The hour of the day (in the subscriber's zone) a daily digest goes. */
export const DIGEST_HOUR = 7;

/** The subscriber-facing form of a subscription. */
export interface AlertSubscription {
  id: string;
  email: string;
  status: 'pending' | 'confirmed';
  frequency: AlertFrequency;
  timeZone: string;
  search: Record<string, string>;
  createdAt: string;
  confirmedAt: string | null;
  /** When it ends (retention): confirmedAt plus the retention days; null while pending. */
  endsAt: string | null;
}

interface SubscriptionRow {
  id: string;
  email: string;
  status: 'pending' | 'confirmed';
  frequency: AlertFrequency;
  time_zone: string;
  search: Record<string, string>;
  created_at: Date | string;
  confirmed_at: Date | string | null;
  token: string;
}

const toSubscription = (r: SubscriptionRow, retentionDays: number): AlertSubscription => ({
  id: r.id,
  email: r.email,
  status: r.status,
  frequency: r.frequency,
  timeZone: r.time_zone,
  search: r.search,
  createdAt: iso(r.created_at),
  confirmedAt: isoOrNull(r.confirmed_at),
  endsAt: r.confirmed_at ? new Date(new Date(r.confirmed_at).getTime() + retentionDays * 86_400_000).toISOString() : null,
});

export const emailKey = (email: string) => email.trim().toLowerCase();

/** SQL of the next digest time after now in a subscription's zone (its time_zone column, `col`): DIGEST_HOUR today if still ahead, else tomorrow. */
export function nextDigestSql(col = 'time_zone'): string {
  const today = `date_trunc('day', now() AT TIME ZONE ${col})`;
  return `(CASE WHEN ${today} + make_interval(hours => ${DIGEST_HOUR}) > now() AT TIME ZONE ${col}
    THEN ${today} + make_interval(hours => ${DIGEST_HOUR})
    ELSE ${today} + make_interval(days => 1, hours => ${DIGEST_HOUR}) END) AT TIME ZONE ${col}`;
}

/** Adds to today's (UTC) dashboard counts. */
export async function countAlertDay(db: Knex, counts: Partial<Record<'subscribed' | 'confirmed' | 'sent' | 'unsubscribed', number>>): Promise<void> {
  const entries = Object.entries(counts).filter(([, n]) => n);
  if (entries.length === 0) return;
  const columns = entries.map(([name]) => name);
  await db.raw(
    `INSERT INTO alert_daily_counts (day, ${columns.join(', ')}) VALUES ((now() AT TIME ZONE 'UTC')::date, ${columns.map(() => '?').join(', ')})
     ON CONFLICT (day) DO UPDATE SET ${columns.map((c) => `${c} = alert_daily_counts.${c} + excluded.${c}`).join(', ')}`,
    entries.map(([, n]) => n as number),
  );
}

export interface NewSubscription {
  email: string;
  frequency: AlertFrequency;
  timeZone: string;
  /** The search's parameters as the subscriber gave them (normalised to query-string text). */
  search: Record<string, string>;
  columns: SavedSearchColumns;
  consentIp: string | null;
}

/**
 * Stores a subscription request. The same search and frequency already asked for by the address
 * is that subscription again (its confirmation mailed again while pending). Returns what to mail:
 * the subscription and its token when a confirmation should go, null when nothing should (already
 * confirmed, the address at its subscription cap, or at CONFIRM_MAILS_WAITING).
 */
export async function requestSubscription(db: Knex, input: NewSubscription): Promise<{ id: string; token: string } | null> {
  const key = emailKey(input.email);
  return db.transaction(async (trx) => {
    // One address's requests take turns, so two at once cannot both pass its caps.
    await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 63))', [`alerts:${key}`]);
    const existing = await trx('alert_subscriptions')
      .where({ email_key: key, frequency: input.frequency })
      .whereRaw('search = ?::jsonb', [JSON.stringify(input.search)])
      .first('id', 'token', 'status');
    // Confirmation mails of requests still waiting: they expire, so the allowance comes back.
    const waitingMails = await trx('alert_subscriptions').where({ email_key: key, status: 'pending' }).sum({ n: 'confirm_mails' }).first();
    const mailsLeft = Number(waitingMails?.n ?? 0) < CONFIRM_MAILS_WAITING;
    if (existing) {
      if (existing.status !== 'pending' || !mailsLeft) return null;
      await trx('alert_subscriptions').where({ id: existing.id }).increment('confirm_mails', 1);
      return { id: existing.id as string, token: existing.token as string };
    }
    const [{ n }] = await trx('alert_subscriptions').where({ email_key: key }).count({ n: '*' });
    if (Number(n) >= SUBSCRIPTIONS_PER_ADDRESS || !mailsLeft) return null;
    const id = randomUUID();
    const token = newSecret('lal');
    await trx('alert_subscriptions').insert({
      id,
      email: input.email.trim(),
      email_key: key,
      token,
      frequency: input.frequency,
      time_zone: input.timeZone,
      search: JSON.stringify(input.search),
      ...input.columns,
      consent_ip: input.consentIp,
      confirm_mails: 1,
    });
    await countAlertDay(trx, { subscribed: 1 });
    return { id, token };
  });
}

/** A subscription by its token (the address's own), or null. */
async function byToken(db: Knex, token: string): Promise<SubscriptionRow | null> {
  return (await db('alert_subscriptions').where({ token }).first()) ?? null;
}

/** Confirms the subscription of a token: true when it is (now or already) confirmed, false when there is none. */
export async function confirmSubscription(db: Knex, token: string, retentionDays: number): Promise<AlertSubscription | null> {
  return db.transaction(async (trx) => {
    const [row] = await trx('alert_subscriptions')
      .where({ token, status: 'pending' })
      .update({ status: 'confirmed', confirmed_at: trx.fn.now(), next_digest_at: trx.raw(`CASE WHEN frequency = 'daily' THEN ${nextDigestSql()} END`) })
      .returning('*');
    if (row) await countAlertDay(trx, { confirmed: 1 });
    const current = row ?? (await byToken(trx, token));
    return current ? toSubscription(current, retentionDays) : null;
  });
}

/** Every subscription of the address a token belongs to (null: no such token). */
export async function subscriptionsOfToken(db: Knex, token: string, retentionDays: number): Promise<AlertSubscription[] | null> {
  const owner = await byToken(db, token);
  if (!owner) return null;
  const rows: SubscriptionRow[] = await db('alert_subscriptions')
    .where({ email_key: emailKey(owner.email) })
    .orderBy('created_at')
    .orderBy('id');
  return rows.map((r) => toSubscription(r, retentionDays));
}

/** The subscription of a token, for its pages (null: none). */
export async function subscriptionOfToken(db: Knex, token: string, retentionDays: number): Promise<AlertSubscription | null> {
  const row = await byToken(db, token);
  return row ? toSubscription(row, retentionDays) : null;
}

/**
 * Deletes the subscriptions a query selects, and their matches: alert_matches has no foreign key
 * to them (checking one for every match recorded took a fifth of the matcher's time, bench:alerts),
 * so whatever deletes a subscription deletes its matches in the same transaction. Returns how many.
 */
async function deleteWithMatches(trx: Knex.Transaction, select: (q: Knex.QueryBuilder) => Knex.QueryBuilder): Promise<number> {
  const gone: { id: string }[] = await select(trx('alert_subscriptions')).del().returning('id');
  if (gone.length) await trx.raw('DELETE FROM alert_matches WHERE subscription_id = ANY(?::uuid[])', [gone.map((r) => r.id)]);
  return gone.length;
}

/** Deletes the subscription of a token: true when there was one. */
export async function unsubscribe(db: Knex, token: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const gone = await deleteWithMatches(trx, (q) => q.where({ token }));
    if (gone) await countAlertDay(trx, { unsubscribed: gone });
    return gone > 0;
  });
}

/** Deletes one of the address's subscriptions, by the token of any of them: true when there was one. */
export async function deleteSubscription(db: Knex, token: string, id: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const owner = await byToken(trx, token);
    if (!owner) return false;
    const gone = await deleteWithMatches(trx, (q) => q.where({ id, email_key: emailKey(owner.email) }));
    if (gone) await countAlertDay(trx, { unsubscribed: gone });
    return gone > 0;
  });
}

/** Deletes the subscriptions of a blocked address or domain (and its subdomains). Returns how many. */
export async function deleteBlockedSubscriptions(db: Knex, kind: 'email' | 'domain', value: string): Promise<number> {
  return db.transaction((trx) =>
    deleteWithMatches(trx, (q) =>
      kind === 'email'
        ? q.where({ email_key: value })
        : q.whereRaw(`split_part(email_key, '@', 2) = ? OR split_part(email_key, '@', 2) LIKE ?`, [value, `%.${value}`]),
    ),
  );
}

/**
 * Purges what has run its time: pending subscriptions past CONFIRM_WITHIN_HOURS, confirmed ones
 * past the retention days since their confirmation (leads' retention), and matches and sent alert
 * mails older than the change log's window (its changes can no longer be read again, so nothing
 * needs them to avoid a repeat). Returns how many of each.
 */
export async function purgeAlerts(
  db: Knex,
  retentionDays: number,
  changeLogDays: number,
): Promise<{ expired: number; ended: number; matches: number; mails: number }> {
  const expired = await db.transaction((trx) =>
    deleteWithMatches(trx, (q) => q.where({ status: 'pending' }).whereRaw('created_at < now() - make_interval(hours => ?)', [CONFIRM_WITHIN_HOURS])),
  );
  const ended = await db.transaction((trx) =>
    deleteWithMatches(trx, (q) => q.where({ status: 'confirmed' }).whereRaw('confirmed_at < now() - make_interval(days => ?)', [retentionDays])),
  );
  // Mailed (or left out) past the window, and any a matcher recorded for a subscription deleted
  // while it ran (no foreign key holds them back; nothing reads them).
  const { rows: matches } = await db.raw(
    `DELETE FROM alert_matches m
      WHERE (m.matched_at < now() - make_interval(days => ?) AND (m.notification_id IS NOT NULL OR m.skipped))
         OR (m.matched_at < now() - interval '1 hour' AND NOT EXISTS (SELECT 1 FROM alert_subscriptions s WHERE s.id = m.subscription_id))
      RETURNING m.seq`,
    [changeLogDays],
  );
  // An alert mail's outbox row (its address) goes once it is done with, with its matches.
  const mails = await db('notifications')
    .whereNotNull('subscription_id')
    .whereNot({ status: 'pending' })
    .whereRaw('created_at < now() - make_interval(days => ?)', [changeLogDays])
    .del()
    .returning('id');
  return { expired, ended, matches: matches.length, mails: mails.length };
}

/** The dashboard's figures: subscriptions now, and per UTC day over the last `days`. */
export async function alertStats(
  db: Knex,
  days: number,
): Promise<{
  subscriptions: { pending: number; confirmed: number; instant: number; daily: number };
  days: { day: string; subscribed: number; confirmed: number; sent: number; unsubscribed: number }[];
}> {
  const [now] = (
    await db.raw(`SELECT count(*) FILTER (WHERE status = 'pending') AS pending, count(*) FILTER (WHERE status = 'confirmed') AS confirmed,
            count(*) FILTER (WHERE status = 'confirmed' AND frequency = 'instant') AS instant,
            count(*) FILTER (WHERE status = 'confirmed' AND frequency = 'daily') AS daily FROM alert_subscriptions`)
  ).rows;
  const { rows } = await db.raw(
    `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, coalesce(c.subscribed, 0) AS subscribed, coalesce(c.confirmed, 0) AS confirmed,
            coalesce(c.sent, 0) AS sent, coalesce(c.unsubscribed, 0) AS unsubscribed
       FROM generate_series((now() AT TIME ZONE 'UTC')::date - (?::int - 1), (now() AT TIME ZONE 'UTC')::date, interval '1 day') AS d(day)
       LEFT JOIN alert_daily_counts c ON c.day = d.day::date
      ORDER BY d.day`,
    [days],
  );
  return {
    subscriptions: { pending: Number(now.pending), confirmed: Number(now.confirmed), instant: Number(now.instant), daily: Number(now.daily) },
    days: (rows as Record<string, string | number>[]).map((r) => ({
      day: String(r.day),
      subscribed: Number(r.subscribed),
      confirmed: Number(r.confirmed),
      sent: Number(r.sent),
      unsubscribed: Number(r.unsubscribed),
    })),
  };
}

/** The IANA zone names Node knows, made at the first check. */
let ianaZones: Set<string> | undefined;

/** Whether a zone name is an IANA zone the database knows too (PostgreSQL and PGlite carry the zone data). */
export async function knownTimeZone(db: Knex, zone: string): Promise<boolean> {
  ianaZones ??= new Set(['UTC', ...Intl.supportedValuesOf('timeZone')]);
  if (!ianaZones.has(zone)) return false;
  return db
    .raw('SELECT now() AT TIME ZONE ?', [zone])
    .then(() => true)
    .catch(() => false);
}
