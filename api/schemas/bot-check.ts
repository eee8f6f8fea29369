/**
 * The members a public form (an enquiry, an alert request) carries for the bot check of
 * api/bot-check.ts: a Turnstile token, and a honeypot that a person leaves empty. `what` names what a
 * filled honeypot rejects, in the form's own words.
 */
export const botCheckProperties = (what: string) =>
  ({
    turnstileToken: { type: 'string', maxLength: 4096 },
    website: {
      type: 'string',
      maxLength: 2000,
      description: `Honeypot: leave empty (or leave out). Any character in it, a space included, rejects the ${what}.`,
    },
  }) as const;
