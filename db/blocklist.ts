import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { iso } from './row-values.js';
import type * as Row from './rows.js';

export interface BlocklistRow {
  id: string;
  kind: 'email' | 'domain';
  value: string;
  reason: string | null;
  createdAt: string;
}

const toRow = (r: Row.BlocklistEntry): BlocklistRow => ({ id: r.id, kind: r.kind, value: r.value, reason: r.reason ?? null, createdAt: iso(r.created_at) });

/**
 * Domains of widely used mail providers: blocking one would block a large share of genuine
 * consumers, so it needs `force: true`.
 */
export const COMMON_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'yahoo.com',
  'yahoo.com.au',
  'ymail.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'gmx.com',
  'gmx.de',
  'mail.com',
  'zoho.com',
  'yandex.com',
  'yandex.ru',
  'qq.com',
  '163.com',
  'bigpond.com',
  'bigpond.net.au',
  'optusnet.com.au',
  'xtra.co.nz',
  'btinternet.com',
]);

export const normaliseBlockValue = (kind: 'email' | 'domain', value: string) =>
  kind === 'domain' ? value.trim().toLowerCase().replace(/^@/, '').replace(/\.$/, '') : value.trim().toLowerCase();

export async function listBlocklist(db: Knex): Promise<BlocklistRow[]> {
  return (await db('blocklist').orderBy('created_at', 'desc').orderBy('id')).map(toRow);
}

/** Adds an entry, or with replace updates the reason of an existing one. `exists` when it is there and replace is false. */
export async function addBlock(
  db: Knex,
  entry: { kind: 'email' | 'domain'; value: string; reason: string | null },
  replace: boolean,
): Promise<{ row: BlocklistRow } | { exists: BlocklistRow }> {
  const existing = await db('blocklist').where({ kind: entry.kind, value: entry.value }).first();
  if (existing && !replace) return { exists: toRow(existing) };
  if (existing) {
    const [row] = await db('blocklist').where({ id: existing.id }).update({ reason: entry.reason }).returning('*');
    return { row: toRow(row) };
  }
  const [row] = await db('blocklist')
    .insert({ id: randomUUID(), ...entry })
    .returning('*');
  return { row: toRow(row) };
}

export async function removeBlock(db: Knex, by: { id: string } | { kind: 'email' | 'domain'; value: string }): Promise<BlocklistRow | null> {
  const [row] = await db('blocklist').where(by).del().returning('*');
  return row ? toRow(row) : null;
}

/** Whether the address, or its domain or any parent domain, is blocked. */
export async function isBlocked(db: Knex, email: string): Promise<boolean> {
  const address = email.trim().toLowerCase();
  const domain = address.slice(address.lastIndexOf('@') + 1);
  const parts = domain.split('.');
  const domains = parts.map((_, i) => parts.slice(i).join('.')).filter((d) => d.includes('.'));
  const hit = await db('blocklist')
    .where((w) => w.where({ kind: 'email', value: address }).orWhere((d) => d.where({ kind: 'domain' }).whereIn('value', domains)))
    .first('id');
  return Boolean(hit);
}
