import type { Queue } from 'bullmq';
import { expect } from 'chai';
import { claimLead, enquirableListing, insertLead, leadRecipient } from '../../db/leads.js';
import { queueForBoard } from '../../workers/bullmq-queue.js';
import { LEAD_QUEUE } from '../../workers/job-queue.js';
import { feed, postgresUrl } from '../helpers.js';
import { activeKey, pushFeed } from '../ingest/client.js';
import { redisUrl, startTestService, type TestService } from '../service.js';
import { type SmtpSink, startSmtpSink } from '../smtp-sink.js';
import { startTcpProxy } from '../tcp-proxy.js';

const LISTING =
  '<residential modTime="2024-03-01-10:00:00" status="current"><agentID>OFF1</agentID><uniqueID>A</uniqueID>' +
  '<listingAgent id="1"><name>Ann</name><email>ann@agency.example</email></listingAgent><headline>Cottage</headline>' +
  '<address><streetNumber>1</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address></residential>';

const viaProxy = (url: string, port: number) => {
  const u = new URL(url);
  u.port = String(port);
  return u.toString();
};

/** Polls until check() holds (bounded); returns whether it did. */
async function until(check: () => Promise<boolean>, tries = 400, everyMs = 50): Promise<boolean> {
  for (let i = 0; i < tries; i += 1) {
    if (await check().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return false;
}

const enquiry = (message: string) => ({
  listing: { office: 'OFF1', uniqueId: 'A' },
  contact: { email: 'jo@home.example', message },
  consent: true,
});

async function submit(url: string, message: string): Promise<string> {
  const res = await fetch(`${url}/v1/leads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(enquiry(message)) });
  expect(res.status).to.equal(202);
  return ((await res.json()) as { id: string }).id;
}

/** The sending claim's lease (5 minutes) as lapsed: a test cannot wait it out. */
const lapseLease = (svc: TestService, id: string) =>
  svc
    .db('leads')
    .where({ id, status: 'sending' })
    .update({ sending_at: svc.db.raw("now() - interval '6 minutes'"), updated_at: svc.db.raw("now() - interval '6 minutes'") });

const statusOf = async (svc: TestService, id: string) => (await svc.db('leads').where({ id }).first('status')).status as string;

describe('A lead left `sending` whose lease lapsed is delivered again (PostgreSQL + BullMQ + SMTP)', function () {
  this.timeout(90_000);
  let smtp: SmtpSink;
  before(async () => {
    smtp = await startSmtpSink();
  });
  after(() => smtp.close());
  const mailsOf = (message: string) => smtp.messages.filter((m) => m.raw.includes(message)).length;

  it('sends again a lead mailed while PostgreSQL was cut, whose job completed in BullMQ with the lead still `sending`', async () => {
    const proxy = await startTcpProxy(Number(new URL(postgresUrl).port || 5432));
    const svc = await startTestService({ database: 'postgres', redis: true, env: { DATABASE_URL: viaProxy(postgresUrl, proxy.port), SMTP_URL: smtp.url } });
    const board: Queue = queueForBoard(LEAD_QUEUE, redisUrl, svc.queuePrefix);
    try {
      expect((await pushFeed(svc.url, await activeKey(svc.db, ['OFF1']), feed(LISTING))).status).to.equal(200);
      const message = 'Cut while mailing';
      smtp.holdNext(3000);
      const arrived = smtp.arrived;
      const id = await submit(svc.url, message);
      expect(await until(async () => smtp.arrived > arrived), 'the mail is on its way').to.equal(true);
      proxy.cut();
      // The SMTP server accepts the mail; recording it fails, and so does the job's attempt.
      const job = () => board.getJob(`${LEAD_QUEUE}-${id}~0`);
      expect(await until(async () => ((await job())?.attemptsMade ?? 0) >= 1)).to.equal(true);
      expect(mailsOf(message)).to.equal(1);
      proxy.resume();
      // The job's next attempt finds the lead claimed under a lease still running: it completes.
      expect(await until(async () => (await (await job())?.getState()) === 'completed')).to.equal(true);
      expect(await statusOf(svc, id)).to.equal('sending');

      await lapseLease(svc, id);
      await svc.runtime.sweep();
      expect(await until(async () => (await statusOf(svc, id)) === 'delivered'), 'delivered after the lease').to.equal(true);
      // At least once: the mail that went out before the cut, and the one sent after the lease.
      expect(mailsOf(message)).to.equal(2);
    } finally {
      await board.close();
      proxy.resume();
      await svc.close();
      await proxy.close();
    }
  });

  it('sends a lead whose worker died between claiming and sending it, once the lease lapsed, and not before', async () => {
    const setup = await startTestService({ database: 'postgres', redis: true, env: { SMTP_URL: smtp.url } });
    const shared = { database: 'postgres', redis: true, db: setup.db, queuePrefix: setup.queuePrefix, env: { SMTP_URL: smtp.url } } as const;
    let web: TestService | null = null;
    let worker: TestService | null = null;
    const board: Queue = queueForBoard(LEAD_QUEUE, redisUrl, setup.queuePrefix);
    try {
      expect((await pushFeed(setup.url, await activeKey(setup.db, ['OFF1']), feed(LISTING))).status).to.equal(200);
      await setup.stop();
      // A web role takes the lead; no worker runs now, so its job waits in Redis.
      web = await startTestService({ ...shared, consume: false });
      const message = 'Claimed by a worker that died';
      const id = await submit(web.url, message);
      // A worker claims it and dies before sending; BullMQ hands the stalled job to another.
      expect(await claimLead(web.db, id)).to.not.equal(null);
      worker = await startTestService(shared);
      expect(await until(async () => (await (await board.getJob(`${LEAD_QUEUE}-${id}~0`))?.getState()) === 'completed')).to.equal(true);
      expect(await statusOf(worker, id)).to.equal('sending');
      // The dead sender's claim is honoured for its lease.
      await worker.runtime.sweep();
      expect(await statusOf(worker, id)).to.equal('sending');
      expect(mailsOf(message)).to.equal(0);

      await lapseLease(worker, id);
      await worker.runtime.sweep();
      expect(await until(async () => (await statusOf(worker!, id)) === 'delivered'), 'delivered after the lease').to.equal(true);
      expect(mailsOf(message)).to.equal(1);
      expect((await setup.db('leads').where({ id }).first('attempts')).attempts).to.equal(2);
    } finally {
      await board.close();
      await worker?.close();
      await web?.close();
      await setup.close();
    }
  });
});

describe('A lead left `sending` whose lease lapsed is delivered again (the embedded default: PGlite, in-process queue)', function () {
  this.timeout(60_000);
  let smtp: SmtpSink;
  let svc: TestService;
  before(async () => {
    smtp = await startSmtpSink();
    svc = await startTestService({ database: 'pglite', env: { SMTP_URL: smtp.url } });
    expect((await pushFeed(svc.url, await activeKey(svc.db, ['OFF1']), feed(LISTING))).status).to.equal(200);
  });
  after(async () => {
    await svc.close();
    await smtp.close();
  });

  it('sends a lead whose sender died after claiming it (its in-process job died with it), once the lease lapsed', async () => {
    const listing = (await enquirableListing(svc.db, 'OFF1', 'A'))!;
    const message = 'Claimed by a process that died';
    // As the process left it: stored, claimed, and no job anywhere.
    const { id } = await insertLead(
      svc.db,
      { listing, contact: { email: 'jo@home.example', message }, recipient: await leadRecipient(svc.db, listing) },
      (data) => JSON.stringify({ type: 'lead.created', data }),
      900_000,
    );
    expect(await claimLead(svc.db, id)).to.not.equal(null);
    await svc.runtime.sweep();
    expect(await statusOf(svc, id)).to.equal('sending');
    await lapseLease(svc, id);
    await svc.runtime.sweep();
    expect(await until(async () => (await statusOf(svc, id)) === 'delivered')).to.equal(true);
    expect(smtp.messages.filter((m) => m.raw.includes(message)).length).to.equal(1);
  });
});
