import { randomUUID } from 'node:crypto';

const TIMEOUT_MS = 3000;

/**
 * Server-side bot-challenge verification (Cloudflare Turnstile siteverify, PITFALLS §4). Fails
 * closed: any error, timeout or odd answer is a rejection. Returns why it was rejected, or null.
 */
export async function verifyTurnstile(
  options: { verifyUrl: string; secret: string },
  token: string | undefined,
  remoteIp: string | undefined,
): Promise<string | null> {
  if (!token) return 'the bot challenge token is missing';
  if (token.length > 2048) return 'the bot challenge token is too long';
  try {
    const res = await fetch(options.verifyUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ secret: options.secret, response: token, remoteip: remoteIp, idempotency_key: randomUUID() }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: 'error',
    });
    if (!res.ok) return `the bot challenge could not be verified (siteverify answered ${res.status})`;
    const body = (await res.json()) as { success?: unknown; 'error-codes'?: unknown };
    if (body.success === true) return null;
    return `the bot challenge was rejected${Array.isArray(body['error-codes']) && body['error-codes'].length ? ` (${body['error-codes'].join(', ')})` : ''}`;
  } catch {
    return 'the bot challenge could not be verified';
  }
}
