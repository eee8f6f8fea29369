import type { Knex } from 'knex';
import { amount, askingOf, publicPricesOf, soldOf } from '../change-log-sql.js';

/**
 * change_log: one ordered record of every change to what the public sees of a listing (RESO
 * Property), a project, an agent (Member) or an office (Office). Rows are appended by triggers on
 * the tables themselves, so every write path (a feed's upsert or COPY, a full feed's archive, an
 * operator hiding a listing, a directory refresh) logs in the same transaction as its change, and
 * a change that rolls back leaves no row.
 *
 * A row's position (`seq`, RESO's EntityEventSequence) is not taken when it is written: a
 * transaction that wrote first may commit last, and a reader that had read past its position
 * would never see it. The sequencer (db/change-log.ts) numbers committed rows afterwards, one run
 * at a time (the head row is its lock), so positions are given in commit order and a reader that
 * has read up to N never later finds a row below N. docs/architecture.md, The change log.
 */

/** Statuses a public read shows a listing in (its own page, RESO Property). */
const SHOWN = `('active', 'under_offer', 'sold', 'leased')`;

/** What made the change, when the writer said (SET LOCAL listings.change_source = 'feed:…'). */
const SOURCE = `nullif(current_setting('listings.change_source', true), '')`;

/** Wakes the sequencer when the transaction commits (a notification is delivered only then). */
const NOTIFY = `IF found THEN PERFORM pg_notify('change_log', current_schema()); END IF;`;

const LISTING_INSERT = `
  CREATE FUNCTION change_log_listings_insert() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO change_log (resource, record_key, office, kind, new_status, new_price, sold_price, public_before, public_after, source)
    SELECT 'Property', n.listing_key, n.office, 'published', n.status, np.price, np.sold, false, true, ${SOURCE}
      FROM new_rows n CROSS JOIN ${publicPricesOf('n')} np
     WHERE n.is_shown AND n.status IN ${SHOWN}
     ORDER BY n.listing_key;
    ${NOTIFY}
    RETURN NULL;
  END $$`;

/**
 * One row per kind of change a listing's update made to what the public sees:
 * - it left public reads: hidden (an operator), archived (a full feed), withheld (its source), or
 *   status_changed (withdrawn, off the market);
 * - it came into public reads: published the first time, else shown (an operator, or its source
 *   allowing display again) or status_changed (back on the market), and price_changed when it came
 *   back at another price than the public last saw;
 * - it stayed public: status_changed, and price_changed when the public price changed to one
 *   shown (a price the agent starts withholding is a change, not a price change), else changed
 *   when its content or public form did;
 * - it stayed out of public reads: status_changed only (its owner's webhooks hear of it; no public
 *   surface shows it).
 */
const LISTING_UPDATE = `
  CREATE FUNCTION change_log_listings_update() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    od jsonb := OLD.data;
    op jsonb := OLD.public_patch;
    nd jsonb := NEW.data;
    np jsonb := NEW.public_patch;
    was boolean := OLD.is_shown AND OLD.status IN ${SHOWN};
    now boolean := NEW.is_shown AND NEW.status IN ${SHOWN};
    old_price jsonb := ${amount(askingOf('od', 'op'))};
    new_price jsonb := ${amount(askingOf('nd', 'np'))};
    sold_price jsonb := CASE WHEN NEW.status IN ('sold', 'leased') THEN ${amount(soldOf('nd', 'np'), false)} END;
    price_changed boolean := new_price IS NOT NULL AND old_price IS DISTINCT FROM new_price;
    kinds text[];
  BEGIN
    IF was AND NOT now THEN
      kinds := ARRAY[CASE WHEN NEW.hidden AND NOT OLD.hidden THEN 'hidden'
                          WHEN NEW.status = 'archived' THEN 'archived'
                          WHEN OLD.is_shown AND NOT NEW.is_shown THEN 'withheld'
                          ELSE 'status_changed' END];
    ELSIF now AND NOT was THEN
      IF NOT EXISTS (SELECT 1 FROM change_log c WHERE c.resource = 'Property' AND c.record_key = NEW.listing_key AND c.kind = 'published') THEN
        kinds := ARRAY['published'];
      ELSE
        kinds := array_remove(ARRAY[CASE WHEN OLD.status IS DISTINCT FROM NEW.status THEN 'status_changed' ELSE 'shown' END,
                                    CASE WHEN price_changed THEN 'price_changed' END], NULL);
      END IF;
    ELSIF now AND was THEN
      kinds := array_remove(ARRAY[
        CASE WHEN OLD.status <> NEW.status THEN 'status_changed' END,
        CASE WHEN price_changed THEN 'price_changed' END,
        CASE WHEN OLD.status = NEW.status AND NOT price_changed
              AND (OLD.content_hash IS DISTINCT FROM NEW.content_hash OR op IS DISTINCT FROM np) THEN 'changed' END], NULL);
    ELSIF OLD.status <> NEW.status THEN
      kinds := ARRAY['status_changed'];
    END IF;
    IF cardinality(kinds) > 0 THEN
      INSERT INTO change_log (resource, record_key, office, kind, old_status, new_status, old_price, new_price, sold_price, public_before, public_after, source)
      SELECT 'Property', NEW.listing_key, NEW.office, k.kind, OLD.status, NEW.status, old_price, new_price, sold_price, was, now, ${SOURCE}
        FROM unnest(kinds) WITH ORDINALITY AS k(kind, n) ORDER BY k.n;
      PERFORM pg_notify('change_log', current_schema());
    END IF;
    RETURN NULL;
  END $$`;

const PROJECT_INSERT = `
  CREATE FUNCTION change_log_projects_insert() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO change_log (resource, record_key, office, kind, new_status, public_before, public_after, source)
    SELECT 'Project', n.project_key, n.office, 'published', n.status, false, true, ${SOURCE}
      FROM new_rows n WHERE n.status <> 'archived' ORDER BY n.project_key;
    ${NOTIFY}
    RETURN NULL;
  END $$`;

const PROJECT_UPDATE = `
  CREATE FUNCTION change_log_projects_update() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO change_log (resource, record_key, office, kind, old_status, new_status, public_before, public_after, source)
    SELECT 'Project', n.project_key, n.office,
           CASE WHEN o.status <> 'archived' AND n.status = 'archived' THEN 'archived'
                WHEN o.status = 'archived' AND n.status <> 'archived' THEN 'shown'
                WHEN o.status <> n.status THEN 'status_changed'
                ELSE 'changed' END,
           o.status, n.status, o.status <> 'archived', n.status <> 'archived', ${SOURCE}
      FROM new_rows n JOIN old_rows o USING (project_key)
     WHERE (o.status <> 'archived' OR n.status <> 'archived')
       AND (o.status <> n.status OR o.content_hash IS DISTINCT FROM n.content_hash OR o.public_patch IS DISTINCT FROM n.public_patch)
     ORDER BY n.project_key;
    ${NOTIFY}
    RETURN NULL;
  END $$`;

/** A directory table's rows are its public records: inserted, changed or deleted by the refresh. */
function directoryFunctions(table: string, resource: string, key: string): string[] {
  const insertRows = (rows: string, kind: string, before: boolean, after: boolean) => `
    INSERT INTO change_log (resource, record_key, office, kind, public_before, public_after, source)
    SELECT '${resource}', r.${key}, r.office, '${kind}', ${before}, ${after}, ${SOURCE} FROM ${rows} r ORDER BY r.${key};`;
  return [
    `CREATE FUNCTION change_log_${table}_insert() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN ${insertRows('new_rows', 'published', false, true)} ${NOTIFY} RETURN NULL; END $$`,
    `CREATE FUNCTION change_log_${table}_update() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN ${insertRows('new_rows', 'changed', true, true)} ${NOTIFY} RETURN NULL; END $$`,
    `CREATE FUNCTION change_log_${table}_delete() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN ${insertRows('old_rows', 'removed', true, false)} ${NOTIFY} RETURN NULL; END $$`,
  ];
}

/**
 * A listing's update logs row by row: the function's statements are then planned once per
 * session, where a statement over transition tables this complex was planned on every call (about
 * 0.4 ms of a 1-listing push). Updates that change nothing the public sees (a source fingerprint,
 * a newer modTime alone) do not call it.
 */
const LISTING_UPDATE_TRIGGER = `
  CREATE TRIGGER change_log_update AFTER UPDATE ON listings FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.is_shown IS DISTINCT FROM NEW.is_shown
          OR OLD.content_hash IS DISTINCT FROM NEW.content_hash OR OLD.public_patch IS DISTINCT FROM NEW.public_patch)
    EXECUTE FUNCTION change_log_listings_update()`;

const trigger = (table: string, event: 'INSERT' | 'UPDATE' | 'DELETE') => {
  const tables = event === 'INSERT' ? 'NEW TABLE AS new_rows' : event === 'DELETE' ? 'OLD TABLE AS old_rows' : 'OLD TABLE AS old_rows NEW TABLE AS new_rows';
  return `CREATE TRIGGER change_log_${event.toLowerCase()} AFTER ${event} ON ${table} REFERENCING ${tables}
            FOR EACH STATEMENT EXECUTE FUNCTION change_log_${table}_${event.toLowerCase()}()`;
};

/**
 * change_stamp(): the time a transaction stamps the public records it writes with (updated_at,
 * RESO ModificationTimestamp). The first call in a transaction takes a shared advisory lock keyed
 * by this schema and the current millisecond (modulo 2^32, about 49 days: the reader takes the
 * latest such moment not after now), then reads the clock: the stamp is never earlier than the
 * lock's moment, and the lock is held until the transaction ends. So a reader that finds no such
 * lock older than T knows every record stamped before T has committed, or never will
 * (db/commit-horizon.ts).
 */
const CHANGE_STAMP_FUNCTION = `
  CREATE FUNCTION change_stamp() RETURNS timestamptz LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    given text := current_setting('listings.change_stamp', true);
    stamp timestamptz;
  BEGIN
    IF given IS NOT NULL AND given <> '' THEN RETURN given::timestamptz; END IF;
    PERFORM pg_advisory_xact_lock_shared(hashtext(current_schema()),
      ((floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint % 4294967296) - 2147483648)::int);
    stamp := clock_timestamp();
    PERFORM set_config('listings.change_stamp', stamp::text, true);
    RETURN stamp;
  END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(CHANGE_STAMP_FUNCTION);
  await knex.raw('ALTER TABLE listings ALTER COLUMN updated_at SET DEFAULT change_stamp()');
  await knex.raw('ALTER TABLE directory_offices ALTER COLUMN updated_at SET DEFAULT change_stamp()');
  await knex.raw(`
    CREATE TABLE change_log (
      id bigserial PRIMARY KEY,
      seq bigint UNIQUE,
      resource text NOT NULL,
      record_key text NOT NULL,
      office text,
      kind text NOT NULL,
      old_status text,
      new_status text,
      old_price jsonb,
      new_price jsonb,
      sold_price jsonb,
      public_before boolean NOT NULL,
      public_after boolean NOT NULL,
      source text,
      changed_at timestamptz NOT NULL DEFAULT now(),
      sequenced_at timestamptz
    )`);
  await knex.raw('CREATE INDEX change_log_pending_idx ON change_log (id) WHERE seq IS NULL');
  await knex.raw('CREATE INDEX change_log_record_idx ON change_log (resource, record_key, seq)');
  await knex.raw(`
    CREATE TABLE change_log_head (
      one boolean PRIMARY KEY DEFAULT true CHECK (one),
      last_seq bigint NOT NULL DEFAULT 0,
      complete_from bigint NOT NULL DEFAULT 1
    )`);
  await knex.raw('INSERT INTO change_log_head DEFAULT VALUES');
  // Where each reader that turns the log into something else (the change webhooks) has got to.
  await knex.raw('CREATE TABLE change_log_cursors (name text PRIMARY KEY, seq bigint NOT NULL DEFAULT 0)');
  for (const sql of [LISTING_INSERT, LISTING_UPDATE, PROJECT_INSERT, PROJECT_UPDATE]) await knex.raw(sql);
  for (const sql of directoryFunctions('directory_agents', 'Member', 'agent_id')) await knex.raw(sql);
  for (const sql of directoryFunctions('directory_offices', 'Office', 'office')) await knex.raw(sql);
  await knex.raw(trigger('listings', 'INSERT'));
  await knex.raw(LISTING_UPDATE_TRIGGER);
  await knex.raw(trigger('projects', 'INSERT'));
  await knex.raw(trigger('projects', 'UPDATE'));
  for (const table of ['directory_agents', 'directory_offices']) {
    await knex.raw(trigger(table, 'INSERT'));
    await knex.raw(trigger(table, 'UPDATE'));
    await knex.raw(trigger(table, 'DELETE'));
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['listings', 'projects', 'directory_agents', 'directory_offices']) {
    for (const event of ['insert', 'update', 'delete']) await knex.raw(`DROP TRIGGER IF EXISTS change_log_${event} ON ${table}`);
    for (const event of ['insert', 'update', 'delete']) await knex.raw(`DROP FUNCTION IF EXISTS change_log_${table}_${event}()`);
  }
  await knex.raw('ALTER TABLE listings ALTER COLUMN updated_at SET DEFAULT now()');
  await knex.raw('ALTER TABLE directory_offices ALTER COLUMN updated_at SET DEFAULT now()');
  await knex.raw('DROP FUNCTION change_stamp()');
  await knex.raw('DROP TABLE change_log_cursors');
  await knex.raw('DROP TABLE change_log_head');
  await knex.raw('DROP TABLE change_log');
}
