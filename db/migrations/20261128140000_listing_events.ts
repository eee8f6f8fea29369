import type { Knex } from 'knex';

/**
 * Open homes and auctions as rows (docs/reads.md, Open homes and auctions), so searches can filter
 * and sort by them and calendars read them by office: one row per open home of a listing's record
 * (data->'openHomes') and one for its auction (data->'auction'->>'date', taken to last an hour),
 * each with the zone the listing's local times are read in (data->>'timeZone') for searches by
 * local day. A trigger keeps them in step with the record on every write (insert, COPY, upsert),
 * so no writer can forget them; it fires only when a record has events or they changed.
 * `public_listing_events(data)` is what a public record shows of them: the open homes not yet
 * ended as { start, end }, the inspection texts less those read as ended open homes, and the
 * auction until it has ended.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE listing_events (
      listing_key text NOT NULL REFERENCES listings (listing_key) ON DELETE CASCADE,
      seq int NOT NULL,
      office text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('open_home', 'auction')),
      starts_at timestamptz NOT NULL,
      ends_at timestamptz NOT NULL,
      zone text NOT NULL,
      PRIMARY KEY (listing_key, seq)
    )`);
  await knex.raw("CREATE INDEX listing_events_open_idx ON listing_events (ends_at, listing_key) INCLUDE (starts_at, zone) WHERE kind = 'open_home'");
  await knex.raw('CREATE INDEX listing_events_office_idx ON listing_events (office, ends_at)');
  await knex.raw(`
    CREATE FUNCTION listing_events_sync() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      zone text := coalesce(NEW.data->>'timeZone', 'UTC');
      auction text := NEW.data->'auction'->>'date';
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        DELETE FROM listing_events WHERE listing_key = OLD.listing_key;
      END IF;
      IF jsonb_typeof(NEW.data->'openHomes') = 'array' THEN
        INSERT INTO listing_events (listing_key, seq, office, kind, starts_at, ends_at, zone)
        SELECT NEW.listing_key, o.n, NEW.office, 'open_home', (o.e->>'start')::timestamptz, (o.e->>'end')::timestamptz, zone
          FROM jsonb_array_elements(NEW.data->'openHomes') WITH ORDINALITY AS o(e, n);
      END IF;
      IF auction ~ '^\\d{4}-\\d{2}-\\d{2}T' THEN
        INSERT INTO listing_events (listing_key, seq, office, kind, starts_at, ends_at, zone)
        VALUES (NEW.listing_key, 0, NEW.office, 'auction', auction::timestamptz, auction::timestamptz + interval '60 minutes', zone);
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER listing_events_insert AFTER INSERT ON listings FOR EACH ROW
      WHEN (NEW.data->'openHomes' IS NOT NULL OR NEW.data->'auction'->>'date' IS NOT NULL)
      EXECUTE FUNCTION listing_events_sync()`);
  await knex.raw(`
    CREATE TRIGGER listing_events_update AFTER UPDATE OF data ON listings FOR EACH ROW
      WHEN (OLD.data->'openHomes' IS DISTINCT FROM NEW.data->'openHomes' OR OLD.data->'auction' IS DISTINCT FROM NEW.data->'auction'
            OR OLD.data->'timeZone' IS DISTINCT FROM NEW.data->'timeZone')
      EXECUTE FUNCTION listing_events_sync()`);
  // The auctions stored before (open homes come with the next feed, mapped anew).
  await knex.raw(`
    INSERT INTO listing_events (listing_key, seq, office, kind, starts_at, ends_at, zone)
    SELECT listing_key, 0, office, 'auction', (data->'auction'->>'date')::timestamptz, (data->'auction'->>'date')::timestamptz + interval '60 minutes',
           coalesce(data->>'timeZone', 'UTC')
      FROM listings WHERE data->'auction'->>'date' ~ '^\\d{4}-\\d{2}-\\d{2}T'`);
  await knex.raw(`
    CREATE FUNCTION public_listing_events(data jsonb) RETURNS jsonb LANGUAGE sql STABLE PARALLEL SAFE AS $$
      SELECT jsonb_build_object('openHomes', coalesce(
          (SELECT jsonb_agg(jsonb_build_object('start', o.e->'start', 'end', o.e->'end') ORDER BY o.n)
             FROM jsonb_array_elements(CASE WHEN jsonb_typeof(data->'openHomes') = 'array' THEN data->'openHomes' ELSE '[]'::jsonb END)
                  WITH ORDINALITY AS o(e, n)
            WHERE (o.e->>'end')::timestamptz > now()), '[]'::jsonb))
      || CASE WHEN jsonb_typeof(data->'openHomes') = 'array' AND jsonb_typeof(data->'inspections') = 'array' THEN jsonb_build_object('inspections', coalesce(
          (SELECT jsonb_agg(i.t ORDER BY i.n) FROM jsonb_array_elements(data->'inspections') WITH ORDINALITY AS i(t, n)
            WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(data->'openHomes') e
                               WHERE e->'text' = i.t AND (e->>'end')::timestamptz <= now())), '[]'::jsonb))
        ELSE '{}'::jsonb END
      || CASE WHEN data->'auction'->>'date' ~ '^\\d{4}-\\d{2}-\\d{2}T'
               AND (data->'auction'->>'date')::timestamptz + interval '60 minutes' <= now()
        THEN jsonb_build_object('auction', NULL) ELSE '{}'::jsonb END
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION public_listing_events(jsonb)');
  await knex.raw('DROP TRIGGER listing_events_update ON listings');
  await knex.raw('DROP TRIGGER listing_events_insert ON listings');
  await knex.raw('DROP FUNCTION listing_events_sync()');
  await knex.raw('DROP TABLE listing_events');
}
