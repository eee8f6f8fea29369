import { randomUUID } from 'node:crypto';
import type { FeedOutcome } from '../lib/feed-outcome.js';
import { hashSecret, newSecret } from '../lib/secrets.js';
import type { Db } from './knex.js';
import { iso, isoOrNull, likePattern, offsetPage } from './row-values.js';
import type * as Row from './rows.js';
import type { KeyStatus } from './rows.js';

export type { KeyStatus };

import { KEY_SORTS, orderBySql } from './sort-order.js';

export interface FeedKey {
  id: string;
  clientName: string;
  alertEmail: string;
  officeIds: string[];
  status: KeyStatus;
  createdAt: string;
  approvedAt: string | null;
  revokedAt: string | null;
  /** When the key last authenticated a request (recorded at most once a minute). */
  lastUsedAt: string | null;
}

const toKey = (row: Row.FeedKey): FeedKey => ({
  id: row.id,
  clientName: row.client_name,
  alertEmail: row.alert_email,
  officeIds: row.office_ids,
  status: row.status,
  createdAt: iso(row.created_at),
  approvedAt: isoOrNull(row.approved_at),
  revokedAt: isoOrNull(row.revoked_at),
  lastUsedAt: isoOrNull(row.last_used_at),
});

/** Creates a key; the secret is returned only here and stored only as its hash. */
export async function createFeedKey(
  db: Db,
  input: { clientName: string; alertEmail: string; officeIds: string[]; status: 'suspended' | 'active' },
): Promise<{ key: FeedKey; secret: string }> {
  const secret = newSecret('lfk');
  const [row] = await db('feed_keys')
    .insert({
      id: randomUUID(),
      key_hash: hashSecret(secret),
      client_name: input.clientName,
      alert_email: input.alertEmail,
      office_ids: [...new Set(input.officeIds)],
      status: input.status,
      approved_at: input.status === 'active' ? db.fn.now() : null,
    })
    .returning('*');
  return { key: toKey(row), secret };
}

export async function findFeedKeyBySecret(db: Db, secret: string): Promise<FeedKey | null> {
  const row = await db('feed_keys')
    .where({ key_hash: hashSecret(secret) })
    .first();
  return row ? toKey(row) : null;
}

export interface KeyListQuery {
  /** Case-insensitive part of the client name, alert email or an office id. */
  q?: string;
  sort?: string;
  limit: number;
  offset: number;
}

type ListedKey = FeedKey & { lastFeed: { feedId: string; createdAt: string; outcome: string } | null };

/** Feed keys with each one's newest feed, found, sorted and paged; the total counts every match. */
export async function listFeedKeys(
  db: Db,
  query: KeyListQuery = { limit: 1000, offset: 0 },
): Promise<{ total: number; keys: ListedKey[]; nextOffset: number | null }> {
  const base = () => {
    const q = db('feed_keys as k');
    if (query.q) {
      const pattern = likePattern(query.q);
      q.where((w) =>
        w
          .whereRaw("lower(k.client_name) LIKE ? ESCAPE '\\'", [pattern])
          .orWhereRaw("lower(k.alert_email) LIKE ? ESCAPE '\\'", [pattern])
          .orWhereRaw("EXISTS (SELECT 1 FROM unnest(k.office_ids) o WHERE lower(o) LIKE ? ESCAPE '\\')", [pattern]),
      );
    }
    return q;
  };
  type Listed = Row.FeedKey & ({ feed_id: string; feed_at: Date; feed_outcome: FeedOutcome } | { feed_id: null; feed_at: null; feed_outcome: null });
  const { rows, total, nextOffset } = await offsetPage<Listed>(
    base,
    (q) =>
      q
        .select('k.*', 'f.id as feed_id', 'f.created_at as feed_at', 'f.outcome as feed_outcome')
        .joinRaw('LEFT JOIN LATERAL (SELECT id, created_at, outcome FROM feed_events e WHERE e.key_id = k.id ORDER BY created_at DESC LIMIT 1) f ON true')
        .orderByRaw(orderBySql(query.sort ?? 'client', KEY_SORTS, 'k.id')),
    query,
  );
  return {
    total,
    keys: rows.map((row) => ({
      ...toKey(row),
      lastFeed: row.feed_id ? { feedId: row.feed_id, createdAt: iso(row.feed_at), outcome: row.feed_outcome } : null,
    })),
    nextOffset,
  };
}

/** Replaces the offices a key may write; null when there is no such key. */
export async function setFeedKeyOffices(db: Db, id: string, officeIds: string[]): Promise<FeedKey | null> {
  const [row] = await db('feed_keys')
    .where({ id })
    .update({ office_ids: [...new Set(officeIds)] })
    .returning('*');
  return row ? toKey(row) : null;
}

const lastRecorded = new Map<string, number>();
/**
 * Notes that a key authenticated a request: written at most once a minute per key (and per
 * process), never awaited by the request; a failure to write it is only logged by the caller.
 */
export function recordKeyUse(db: Db, id: string, now = Date.now()): Promise<void> | null {
  if (now - (lastRecorded.get(id) ?? 0) < 60_000) return null;
  lastRecorded.set(id, now);
  if (lastRecorded.size > 10_000) lastRecorded.clear();
  return db('feed_keys')
    .where({ id })
    .update({ last_used_at: db.fn.now() })
    .then(() => undefined);
}

export type KeyChange = { key: FeedKey } | { missing: true } | { conflict: FeedKey };

/** approve: suspended -> active; revoke: suspended or active -> revoked. Repeating a change is harmless. */
export async function changeFeedKeyStatus(db: Db, id: string, to: 'active' | 'revoked'): Promise<KeyChange> {
  const from: KeyStatus[] = to === 'active' ? ['suspended', 'active'] : ['suspended', 'active', 'revoked'];
  const stamp = to === 'active' ? { approved_at: db.raw('coalesce(approved_at, now())') } : { revoked_at: db.raw('coalesce(revoked_at, now())') };
  const [row] = await db('feed_keys')
    .where({ id })
    .whereIn('status', from)
    .update({ status: to, ...stamp })
    .returning('*');
  if (row) return { key: toKey(row) };
  const current = await db('feed_keys').where({ id }).first();
  return current ? { conflict: toKey(current) } : { missing: true };
}

/** Whether a key with this id exists and is not revoked (an operator may register webhooks for it). */
export async function isUsableFeedKey(db: Db, id: string): Promise<boolean> {
  return Boolean(await db('feed_keys').where({ id }).whereNot({ status: 'revoked' }).first('id'));
}
