import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { hashSecret, newSecret } from '../lib/secrets.js';
import { isUniqueViolation } from './pg-errors.js';
import { iso, isoOrNull, offsetPage } from './row-values.js';
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
  return rows.map((r: any) => ({ id: r.id, name: r.name, createdAt: iso(r.created_at), revokedAt: isoOrNull(r.revoked_at) }));
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
  const { rows, total } = await offsetPage(base, (q) => q.orderByRaw(orderBySql(page.sort ?? '-at', AUDIT_SORTS, 'id')), page);
  return {
    total,
    entries: rows.map((r: any) => ({ id: String(r.id), at: iso(r.at), actor: r.actor, action: r.action, target: r.target, details: r.details })),
  };
}
