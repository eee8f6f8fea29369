import { verifyTurnstile } from '../lib/turnstile.js';

/** The message a refused consumer submission gets: it does not tell a bot which check caught it. */
export const REJECTED = 'the submission was rejected';

/**
 * Why a consumer's form submission (an enquiry, an alert request) looks like a bot's, or null: a
 * honeypot field that is not empty (anything at all, spaces included: a person never sees the
 * field), else the bot challenge's refusal when TURNSTILE_SECRET is set.
 */
export async function botRejection(
  turnstile: { secret: string; verifyUrl: string } | null,
  body: { website?: string; turnstileToken?: string },
  ip: string | undefined,
): Promise<string | null> {
  if (body.website) return REJECTED;
  return turnstile ? verifyTurnstile(turnstile, body.turnstileToken, ip) : null;
}
