import type { Knex } from 'knex';

/**
 * open_push_after_lock(key_id, body_sha256, format, mode, context, except_id): the oldest feed of
 * the key still queued or running with the same request (body hash, format, mode and context, as
 * db/feed-dedupe.ts compares them), looked for after a transaction-scoped advisory lock on the key
 * and the body's hash. A volatile function's statements each take a fresh snapshot, so the look
 * sees a feed that an identical push stored and committed while this one waited for the lock.
 * Called by the statement that stores a push without an Idempotency-Key (db/feed-events.ts), it
 * makes identical pushes at the same moment take turns in that one round trip: the first stores
 * a feed, the others find it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION open_push_after_lock(p_key_id uuid, p_body_sha256 text, p_format text, p_mode text, p_context jsonb, p_except_id uuid)
    RETURNS SETOF feed_events
    LANGUAGE plpgsql VOLATILE AS $fn$
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('push:' || p_key_id::text || ':' || p_body_sha256, 0));
      RETURN QUERY
        SELECT * FROM feed_events f
        WHERE f.key_id = p_key_id AND f.body_sha256 = p_body_sha256 AND f.format = p_format AND f.mode = p_mode
          AND f.context = p_context AND f.status IN ('queued', 'running') AND f.id <> p_except_id
        ORDER BY f.created_at
        LIMIT 1;
    END
    $fn$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION open_push_after_lock(uuid, text, text, text, jsonb, uuid)');
}
