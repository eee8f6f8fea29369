import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { hashSecret, newSecret } from '../lib/secrets.js';
import { isUniqueViolation } from './pg-errors.js';
import { iso, isoOrNull, offsetPage } from './row-values.js';
import type * as Row from './rows.js';
import { AUDIT_SORTS, orderBySql } from './sort-order.js';

/** Named operator tokens (besides OPERATOR_TOKEN): shown once, stored as a hash. */
export async function createOperatorToken(db: Knex, name: string): Promise<{ id: string; name: string; token: string }> {
  const token = newSecret('lop');
  const id = randomUUID();
  await db('operator_tokens').insert({ id, name, token_hash: hashSecret(token) });
  return { id, name, token };
}

/** Whether any named operator token was ever made (active or revoked). */
export async function hasOperatorTokens(db: Knex): Promise<boolean> {
  return (await db('operator_tokens').first('id')) !== undefined;
}

/** Revokes the active token of that name; false when there is none. */
export async function revokeOperatorToken(db: Knex, name: string): Promise<boolean> {
  const n = await db('operator_tokens').where({ name }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
  return n > 0;
}

/** The name of the active token with this secret, or null. */
export async function operatorTokenName(db: Knex, secret: string): Promise<string | null> {
  const row = await db('operator_tokens')
    .where({ token_hash: hashSecret(secret) })
    .whereNull('revoked_at')
    .first('name');
  return row ? (row.name as string) : null;
}

/** The rule for a named token's name (npm run operator:token and POST /v1/admin/operator-tokens). */
export const OPERATOR_TOKEN_NAME = /^[A-Za-z0-9._@-]{1,64}$/;

/**
 * Makes a named token and records it in the audit log as `actor`, in one transaction; null when an
 * active token of that name exists (one per name: revoke it first).
 */
export async function createNamedOperatorToken(db: Knex, name: string, actor: string): Promise<{ id: string; name: string; token: string } | null> {
  return db
    .transaction(async (trx) => {
      const token = await createOperatorToken(trx, name);
      await recordAudit(trx, { actor, action: 'operator_token.create', target: name });
      return token;
    })
    .catch((err: unknown) => {
      if (isUniqueViolation(err)) return null;
      throw err;
    });
}

/** Revokes the active token of that name and records it in the audit log as `actor`; false when there is none. */
export async function revokeNamedOperatorToken(db: Knex, name: string, actor: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    if (!(await revokeOperatorToken(trx, name))) return false;
    await recordAudit(trx, { actor, action: 'operator_token.revoke', target: name });
    return true;
  });
}

export async function listOperatorTokens(db: Knex): Promise<{ id: string; name: string; createdAt: string; revokedAt: string | null }[]> {
  const rows = await db('operator_tokens').orderBy('created_at', 'desc');
  return rows.map((r: Row.OperatorToken) => ({ id: r.id, name: r.name, createdAt: iso(r.created_at), revokedAt: isoOrNull(r.revoked_at) }));
}

export interface AuditEntry {
  actor: string;
  action: string;
  target?: string | null;
  details?: Record<string, unknown> | null;
}

/** Records who did what; operator actions write it in the same transaction as the change where they can. */
export async function recordAudit(db: Knex, entry: AuditEntry): Promise<void> {
  await db('audit_log').insert({
    actor: entry.actor,
    action: entry.action,
    target: entry.target ?? null,
    details: entry.details ? JSON.stringify(entry.details) : null,
  });
}

export async function listAudit(
  db: Knex,
  page: { limit: number; offset: number; action?: string; actor?: string; sort?: string },
): Promise<{ total: number; entries: Record<string, unknown>[] }> {
  const base = () => {
    const q = db('audit_log');
    if (page.action) q.where({ action: page.action });
    if (page.actor) q.where({ actor: page.actor });
    return q;
  };
  const { rows, total } = await offsetPage<Row.AuditEntry>(base, (q) => q.orderByRaw(orderBySql(page.sort ?? '-at', AUDIT_SORTS, 'id')), page);
  const names = await auditNames(db, rows);
  return {
    total,
    entries: rows.map((r) => ({
      id: String(r.id),
      at: iso(r.at),
      actor: r.actor,
      actorName: r.actor.startsWith('key:') ? (names.keys.get(r.actor.slice(4)) ?? null) : null,
      action: r.action,
      target: r.target,
      targetName: r.target ? (names.targets.get(`${targetKind(r.action)}:${r.target}`) ?? null) : null,
      details: r.details,
    })),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What an action's target id names, by the action's first word: a key, a webhook endpoint, a lead, a trip, a feed or a site page. */
function targetKind(action: string): string | null {
  const kind = action.split('.')[0];
  return ['key', 'webhook', 'lead', 'quarantine', 'feed', 'page'].includes(kind) ? kind : null;
}

/**
 * Names for the ids an audit page shows, so a person reads "Harbour CRM" rather than a UUID: the
 * client name of a key (as target, or as the actor `key:<id>` of a key's own reads), a webhook
 * endpoint's URL, the listing a lead was about, the office of a trip, the client and office of
 * a feed, and a site page's slug. Looked up per page (at most a few queries, each by primary key).
 */
async function auditNames(db: Knex, rows: { actor: string; action: string; target: string | null }[]) {
  const ids = (kind: string) => [...new Set(rows.filter((r) => r.target && targetKind(r.action) === kind && UUID.test(r.target)).map((r) => r.target!))];
  const keyIds = [...new Set([...ids('key'), ...rows.filter((r) => r.actor.startsWith('key:') && UUID.test(r.actor.slice(4))).map((r) => r.actor.slice(4))])];
  const lookup = async (ids: string[], query: () => Knex.QueryBuilder) => (ids.length ? ((await query()) as { id: string; name: string }[]) : []);
  const [keys, webhooks, leads, trips, feeds, pages] = await Promise.all([
    lookup(keyIds, () => db('feed_keys').whereIn('id', keyIds).select('id', 'client_name as name')),
    lookup(ids('webhook'), () => db('webhook_endpoints').whereIn('id', ids('webhook')).select('id', 'url as name')),
    lookup(ids('lead'), () => db('leads').whereIn('id', ids('lead')).select('id', db.raw("'enquiry about ' || listing_key AS name"))),
    lookup(ids('quarantine'), () => db('quarantine_items').whereIn('id', ids('quarantine')).select('id', db.raw("'trip of ' || office AS name"))),
    lookup(ids('feed'), () =>
      db('feed_events')
        .whereIn('feed_events.id', ids('feed'))
        .leftJoin('feed_keys', 'feed_keys.id', 'feed_events.key_id')
        .select(
          'feed_events.id',
          db.raw("'feed of ' || coalesce(feed_keys.client_name, 'an SFTP drop') || ' (' || array_to_string(feed_events.office_scope, ', ') || ')' AS name"),
        ),
    ),
    lookup(ids('page'), () => db('site_pages').whereIn('id', ids('page')).select('id', db.raw("'page ' || slug AS name"))),
  ]);
  const targets = new Map<string, string>();
  for (const [kind, found] of [
    ['key', keys],
    ['webhook', webhooks],
    ['lead', leads],
    ['quarantine', trips],
    ['feed', feeds],
    ['page', pages],
  ] as const)
    for (const { id, name } of found) targets.set(`${kind}:${id}`, name);
  return { keys: new Map(keys.map((k) => [k.id, k.name])), targets };
}
