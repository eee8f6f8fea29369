import { type Logger, pino } from 'pino';

/**
 * Paths never written to logs: credentials (feed keys, operator tokens, SFTP passwords, REAXML root
 * username/password) and consumer contact details.
 */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-feed-token"]',
  'res.headers["set-cookie"]',
  'password',
  '*.password',
  'username',
  '*.username',
  'token',
  '*.token',
  'key',
  '*.key',
  'contact.email',
  'contact.phone',
  'contact.name',
  '*.contact.email',
  '*.contact.phone',
  '*.contact.name',
  'email',
  '*.email',
  'phone',
  '*.phone',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: redactPaths, censor: '[Redacted]' } }, destination);
}

export type { Logger };
