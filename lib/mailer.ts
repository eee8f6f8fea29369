import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  replyTo?: string;
  /** A stable Message-ID lets receiving systems spot a duplicate. */
  messageId?: string;
  /** Extra header fields (List-Unsubscribe and List-Unsubscribe-Post on alerts). */
  headers?: Record<string, string>;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/**
 * The message as nodemailer takes it: the recipient and reply-to as address objects, which
 * nodemailer uses as one address each instead of parsing the text as an address list.
 */
function message(from: string, mail: Mail) {
  return { from, ...mail, to: { name: '', address: mail.to }, replyTo: mail.replyTo ? { name: '', address: mail.replyTo } : undefined };
}

/**
 * The transport `make` makes from nodemailer, made when the first message is sent: nodemailer's
 * modules are loaded then, not in every process's start (docs/performance.md, Start).
 */
function lazyTransport(make: (mailer: typeof import('nodemailer').default) => Transporter): { get(): Promise<Transporter>; close(): void } {
  let transport: Promise<Transporter> | null = null;
  return {
    get: () => {
      transport ??= import('nodemailer').then((module) => make(module.default));
      return transport;
    },
    close: () => void transport?.then((t) => t.close()).catch(() => undefined),
  };
}

/**
 * SMTP_URL when set (explicit timeouts: nodemailer's defaults run to minutes); otherwise each
 * message is written as an .eml file under DATA_DIR/outbox, for the embedded default.
 */
export function createMailer(options: { smtpUrl: string | null; dataDir: string; from: string }): Mailer {
  if (options.smtpUrl) {
    const smtpUrl = options.smtpUrl;
    const transport = lazyTransport((nodemailer) =>
      nodemailer.createTransport(smtpUrl, {
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
      } as object),
    );
    return {
      async send(mail) {
        await (await transport.get()).sendMail(message(options.from, mail));
      },
      close: () => transport.close(),
    };
  }
  const outbox = join(options.dataDir, 'outbox');
  const transport = lazyTransport((nodemailer) => nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));
  return {
    async send(mail) {
      const info = await (await transport.get()).sendMail(message(options.from, mail));
      mkdirSync(outbox, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${info.messageId.replace(/[^A-Za-z0-9._-]/g, '')}.eml`;
      writeFileSync(join(outbox, name), info.message as Buffer);
    },
    close: () => transport.close(),
  };
}
