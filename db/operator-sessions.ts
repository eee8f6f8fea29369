import type { Knex } from 'knex';
import { hashSecret, newSecret } from '../lib/secrets.js';

/** How long a console sign-in session lasts (it is not extended by use). */
export const OPERATOR_SESSION_HOURS = 8;

/**
 * Opens a session for an operator signed in with a token (actor: `bootstrap` or `token:<name>`);
 * returns its secret, which only the cookie carries. Sessions past their end are removed here.
 */
export async function openOperatorSession(db: Knex, actor: string, credential: string): Promise<{ secret: string; expiresAt: Date }> {
  const secret = newSecret('los');
  const expiresAt = new Date(Date.now() + OPERATOR_SESSION_HOURS * 3600_000);
  await db('operator_sessions').where('expires_at', '<', db.fn.now()).delete();
  await db('operator_sessions').insert({ id_hash: hashSecret(secret), actor, credential_hash: hashSecret(credential), expires_at: expiresAt });
  return { secret, expiresAt };
}

/**
 * The actor of a session still open whose token is still good: OPERATOR_TOKEN as it is now, or a
 * named token not revoked. Null otherwise.
 */
export async function operatorSessionActor(db: Knex, secret: string, operatorToken: string | null): Promise<string | null> {
  const row = await db('operator_sessions').where('id_hash', hashSecret(secret)).where('expires_at', '>', db.fn.now()).first('actor', 'credential_hash');
  if (!row) return null;
  if (row.actor === 'bootstrap') return operatorToken && row.credential_hash === hashSecret(operatorToken) ? 'bootstrap' : null;
  const token = await db('operator_tokens').where({ token_hash: row.credential_hash }).whereNull('revoked_at').first('name');
  return token ? (row.actor as string) : null;
}

/** Ends a session (signing out); nothing when there is none. */
export async function closeOperatorSession(db: Knex, secret: string): Promise<void> {
  await db('operator_sessions').where('id_hash', hashSecret(secret)).delete();
}
