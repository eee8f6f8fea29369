import { randomUUID } from 'node:crypto';
import { hashSecret, newSecret } from '../lib/secrets.js';
import type { Db } from './knex.js';
import { iso, isoOrNull } from './row-values.js';

export type KeyStatus = 'suspended' | 'active' | 'revoked';

export interface FeedKey {
  id: string;
  clientName: string;
  alertEmail: string;
  officeIds: string[];
  status: KeyStatus;
  createdAt: string;
  approvedAt: string | null;
  revokedAt: string | null;
}

const toKey = (row: any): FeedKey => ({
  id: row.id,
  clientName: row.client_name,
  alertEmail: row.alert_email,
  officeIds: row.office_ids,
  status: row.status,
  createdAt: iso(row.created_at),
  approvedAt: isoOrNull(row.approved_at),
  revokedAt: isoOrNull(row.revoked_at),
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

/** A key's status now (it may have changed since the request authenticated); null when it is gone. */
export async function feedKeyStatus(db: Db, id: string): Promise<FeedKey['status'] | null> {
  const row = await db('feed_keys').where({ id }).first('status');
  return row?.status ?? null;
}

/** Every key, newest first, each with the newest feed pushed with it (null: none yet). */
export async function listFeedKeys(db: Db): Promise<(FeedKey & { lastFeed: { feedId: string; createdAt: string; outcome: string } | null })[]> {
  const rows = await db('feed_keys as k')
    .select('k.*', 'f.id as feed_id', 'f.created_at as feed_at', 'f.outcome as feed_outcome')
    .joinRaw('LEFT JOIN LATERAL (SELECT id, created_at, outcome FROM feed_events e WHERE e.key_id = k.id ORDER BY created_at DESC LIMIT 1) f ON true')
    .orderBy('k.created_at', 'desc')
    .orderBy('k.id');
  return rows.map((row: any) => ({
    ...toKey(row),
    lastFeed: row.feed_id ? { feedId: row.feed_id, createdAt: iso(row.feed_at), outcome: row.feed_outcome } : null,
  }));
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
