// The peers the lead tests start around a test service: a CRM webhook receiver and an SMTP sink.
import { startTestService, type TestService, type TestServiceOptions } from '../service.js';
import { type SmtpSink, startSmtpSink } from '../smtp-sink.js';
import { Receiver } from '../webhooks/receiver.js';

/** A test service that mails leads to an SMTP sink and may call a webhook receiver on loopback. */
export interface LeadRig {
  svc: TestService;
  smtp: SmtpSink;
  receiver: Receiver;
  /** Closes the service, then the sink, then the receiver. */
  close(): Promise<void>;
}

/**
 * Starts a webhook receiver, an SMTP sink and a test service (with `options`) that sends its mail
 * from leads@service.example through the sink, lets receivers on loopback be registered, runs its
 * maintenance every 200 ms and takes up to 1000 leads per address; `env` adds to or overrides that.
 */
export async function startLeadRig(options: TestServiceOptions, env: Record<string, string> = {}): Promise<LeadRig> {
  const receiver = new Receiver();
  await receiver.start();
  const smtp = await startSmtpSink();
  const svc = await startTestService({
    ...options,
    maintenanceEveryMs: 200,
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'leads@service.example', LEAD_RATE_LIMIT: '1000', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', ...env },
  });
  return {
    svc,
    smtp,
    receiver,
    async close() {
      await svc.close();
      await smtp.close();
      await receiver.close();
    },
  };
}
