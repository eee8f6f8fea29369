import type { Knex } from 'knex';

/**
 * Saved searches and alerts (docs/alerts.md):
 * - alert_subscriptions: a consumer's saved search (its parameters as given, and the same filters
 *   as columns the matcher compares, with `anchors`, the place keys its GIN index finds candidates
 *   by), how often it mails (instant or daily), its time zone, and its one access token (the links
 *   in its mails: confirm, unsubscribe, manage). Pending until the address confirms.
 * - alert_matches: one row per subscription and change log position that matched (the unique key
 *   is what keeps a change from being mailed twice to one subscription), and the outbox row that
 *   carried it (null while it waits; skipped when the listing stopped being public first). No
 *   foreign key to the subscription: checking it for every match recorded was a fifth of the
 *   matcher's time; what deletes a subscription deletes its matches (db/alert-subscriptions.ts).
 * - alert_daily_counts: per UTC day, what the dashboard shows (subscribed, confirmed, mails sent,
 *   unsubscribed); kept without any address.
 * - notifications (the mail outbox) gains an HTML part, extra headers (List-Unsubscribe) and the
 *   subscription an alert mail belongs to (deleted with it: an unsubscribe stops a mail not yet
 *   sent), and the status `skipped` (an alert whose listings all left public reads before it went).
 */
const OLD_STATUSES = ['pending', 'sent', 'failed'];
const inList = (values: string[]) => values.map((v) => `'${v}'`).join(', ');

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE alert_subscriptions (
      id uuid PRIMARY KEY,
      email text NOT NULL,
      email_key text NOT NULL,
      token text NOT NULL UNIQUE,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'confirmed')),
      frequency text NOT NULL CHECK (frequency IN ('instant', 'daily')),
      time_zone text NOT NULL DEFAULT 'UTC',
      search jsonb NOT NULL,
      anchors text[] NOT NULL,
      country text,
      office text,
      categories text[],
      sub_categories text[],
      localities text[],
      regions text[],
      postcodes text[],
      sale_mode text NOT NULL DEFAULT 'both',
      min_price numeric,
      max_price numeric,
      min_bedrooms numeric,
      max_bedrooms numeric,
      min_bathrooms numeric,
      min_car_spaces numeric,
      min_land_area numeric,
      max_land_area numeric,
      q text,
      tsquery text,
      box_min_lng float8,
      box_min_lat float8,
      box_max_lng float8,
      box_max_lat float8,
      near_lat float8,
      near_lng float8,
      radius_km float8,
      consent_ip text,
      confirm_mails integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      confirmed_at timestamptz,
      next_digest_at timestamptz,
      last_mailed_at timestamptz
    )`);
  await knex.raw(`CREATE INDEX alert_subscriptions_anchors_idx ON alert_subscriptions USING gin (anchors) WHERE status = 'confirmed'`);
  await knex.raw('CREATE INDEX alert_subscriptions_email_idx ON alert_subscriptions (email_key)');
  await knex.raw(`CREATE INDEX alert_subscriptions_pending_idx ON alert_subscriptions (created_at) WHERE status = 'pending'`);
  await knex.raw(`CREATE INDEX alert_subscriptions_digest_idx ON alert_subscriptions (next_digest_at) WHERE frequency = 'daily' AND status = 'confirmed'`);
  await knex.raw(`
    CREATE TABLE alert_matches (
      subscription_id uuid NOT NULL,
      seq bigint NOT NULL,
      listing_key text NOT NULL,
      reason text NOT NULL CHECK (reason IN ('new', 'price_drop', 'back_on_market')),
      matched_at timestamptz NOT NULL DEFAULT now(),
      notification_id uuid,
      skipped boolean NOT NULL DEFAULT false,
      PRIMARY KEY (subscription_id, seq)
    )`);
  await knex.raw('CREATE INDEX alert_matches_waiting_idx ON alert_matches (subscription_id, matched_at) WHERE notification_id IS NULL AND NOT skipped');
  await knex.raw('CREATE INDEX alert_matches_notification_idx ON alert_matches (notification_id) WHERE notification_id IS NOT NULL');
  await knex.raw(`
    CREATE TABLE alert_daily_counts (
      day date PRIMARY KEY,
      subscribed integer NOT NULL DEFAULT 0,
      confirmed integer NOT NULL DEFAULT 0,
      sent integer NOT NULL DEFAULT 0,
      unsubscribed integer NOT NULL DEFAULT 0
    )`);
  await knex.raw('ALTER TABLE notifications ADD COLUMN html text, ADD COLUMN headers jsonb');
  await knex.raw('ALTER TABLE notifications ADD COLUMN subscription_id uuid REFERENCES alert_subscriptions (id) ON DELETE CASCADE');
  await knex.raw('ALTER TABLE notifications DROP CONSTRAINT notifications_status_check');
  await knex.raw(`ALTER TABLE notifications ADD CONSTRAINT notifications_status_check CHECK (status IN (${inList([...OLD_STATUSES, 'skipped'])}))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DELETE FROM notifications WHERE subscription_id IS NOT NULL OR status = 'skipped'`);
  await knex.raw('ALTER TABLE notifications DROP CONSTRAINT notifications_status_check');
  await knex.raw(`ALTER TABLE notifications ADD CONSTRAINT notifications_status_check CHECK (status IN (${inList(OLD_STATUSES)}))`);
  await knex.raw('ALTER TABLE notifications DROP COLUMN subscription_id, DROP COLUMN html, DROP COLUMN headers');
  await knex.raw('DROP TABLE alert_daily_counts');
  await knex.raw('DROP TABLE alert_matches');
  await knex.raw('DROP TABLE alert_subscriptions');
}
