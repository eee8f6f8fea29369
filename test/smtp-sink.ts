import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A received message: envelope and the raw RFC 5322 text. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpSink {
  url: string;
  messages: ReceivedMail[];
  /** Answers the next n messages with this SMTP reply code (e.g. 451, 550) instead of accepting them. */
  failNext(n: number, code: number): void;
  /** Holds the reply to the next message for ms (a slow server: the sender is mid-send meanwhile). */
  holdNext(ms: number): void;
  /** Messages whose data has arrived, including any being held. */
  arrived: number;
  close(): Promise<void>;
}

/** A real SMTP server on a loopback port that keeps what it receives. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  let failures: { left: number; code: number } = { left: 0, code: 250 };
  let hold = 0;
  const state = { arrived: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        state.arrived += 1;
        if (hold > 0) {
          const ms = hold;
          hold = 0;
          await new Promise((r) => setTimeout(r, ms));
        }
        if (failures.left > 0) {
          failures.left -= 1;
          callback(Object.assign(new Error(`refused for the test (${failures.code})`), { responseCode: failures.code }));
          return;
        }
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        messages.push({ from, to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    failNext(n, code) {
      failures = { left: n, code };
    },
    holdNext(ms) {
      hold = ms;
    },
    get arrived() {
      return state.arrived;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
