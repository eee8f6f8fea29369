import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { expect } from 'chai';
import { claimLead } from '../../db/leads.js';
import { createMailer } from '../../lib/mailer.js';
import { deliverLead } from '../../workers/leads/deliver-lead.js';
import { feed, silentLogger } from '../helpers.js';
import { activeKey, admin, pushFeed } from '../ingest/client.js';
import { OPERATOR, redisUrl, startTestService, type TestService } from '../service.js';
import { type SmtpSink, startSmtpSink } from '../smtp-sink.js';
import { startTcpProxy } from '../tcp-proxy.js';

const listing = (id: string, opts: { status?: string; agentEmail?: string | null } = {}) =>
  `<residential modTime="2024-03-01-10:00:00" status="${opts.status ?? 'current'}"><agentID>OFF1</agentID><uniqueID>${id}</uniqueID>` +
  (opts.agentEmail === undefined
    ? '<listingAgent id="1"><name>Ann Smith</name><email>ann@agency.example</email></listingAgent>'
    : opts.agentEmail === null
      ? '<listingAgent id="1"><name>No Mail</name></listingAgent>'
      : `<listingAgent id="1"><name>X</name><email>${opts.agentEmail}</email></listingAgent>`) +
  `<headline>Sunny cottage ${id}</headline><address><streetNumber>1</streetNumber><street>Main Road</street><suburb>Richmond</suburb><state>VIC</state><postcode>3121</postcode></address></residential>`;

/** A local siteverify stand-in: answers what the test sets. */
async function siteverify(): Promise<{ url: string; answer: { status: number; body: unknown }; close(): Promise<void> }> {
  const state = { url: '', answer: { status: 200, body: { success: true } as unknown }, close: async (): Promise<void> => undefined };
  const server: Server = createServer(async (req, res) => {
    const parsed = JSON.parse(await text(req));
    const answer =
      parsed.secret === 'turnstile-secret' && parsed.response === 'good-token'
        ? state.answer
        : { status: 200, body: { success: false, 'error-codes': ['invalid-input-response'] } };
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

describe('Leads: submission, routing, delivery, retry, blocklist, purge (PostgreSQL + Redis + SMTP)', function () {
  this.timeout(40_000);
  let svc: TestService;
  let smtp: SmtpSink;
  let verify: Awaited<ReturnType<typeof siteverify>>;
  before(async () => {
    smtp = await startSmtpSink();
    verify = await siteverify();
    svc = await startTestService({
      database: 'postgres',
      redis: true,
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'leads@service.example',
        TURNSTILE_SECRET: 'turnstile-secret',
        TURNSTILE_VERIFY_URL: verify.url,
        LEAD_RATE_LIMIT: '100',
      },
    });
    const key = await activeKey(svc.db, ['OFF1']);
    const res = await pushFeed(
      svc.url,
      key,
      feed(
        listing('A'),
        listing('NOMAIL', { agentEmail: null }),
        listing('SOLD', { status: 'sold' }),
        listing('GONE', { status: 'withdrawn' }),
        listing('BAD', { agentEmail: 'bounce@agency.example' }),
      ),
    );
    expect(res.status).to.equal(200);
  });
  after(async () => {
    await svc.close();
    await smtp.close();
    await verify.close();
  });

  const lead = (over: Record<string, unknown> = {}) => ({
    listing: { office: 'OFF1', uniqueId: 'A' },
    contact: { email: 'jo@home.example', message: 'Is it still available?\nThanks', name: 'Jo Bloggs', phone: '0400 000 000' },
    consent: true,
    turnstileToken: 'good-token',
    ...over,
  });
  const submit = async (body: unknown) => {
    const res = await fetch(`${svc.url}/v1/leads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
  const statusOf = async (id: string, want: string) => {
    let status = '';
    for (let i = 0; i < 300 && status !== want; i += 1) {
      status = (await svc.db('leads').where({ id }).first('status')).status;
      if (status !== want) await new Promise((r) => setTimeout(r, 50));
    }
    return status;
  };

  it('accepts a lead, routes it to the first listing agent with an email, and delivers a readable mail', async () => {
    const { status, body } = await submit(lead());
    expect(status).to.equal(202);
    expect(body).to.have.keys(['id', 'status']);
    expect(body.status).to.equal('pending');
    expect(await statusOf(body.id, 'delivered')).to.equal('delivered');
    const mail = smtp.messages.find((m) => m.raw.includes('Sunny cottage A'))!;
    expect(mail.to).to.deep.equal(['ann@agency.example']);
    expect(mail.raw).to.match(/^Reply-To: (Jo Bloggs )?<?jo@home\.example>?/m);
    expect(mail.raw).to.contain('Is it still available?').and.contain('0400 000 000').and.contain('Main Road').and.contain('/v1/listings/OFF1/A');
    expect(mail.raw).to.match(/Content-Type: text\/html/);
  });

  it('checks in order: schema and consent (400), honeypot (403), bot challenge (403), blocklist (403), listing (404)', async () => {
    const bad: [unknown, RegExp][] = [
      [lead({ contact: { email: `${'x'.repeat(250)}@a.io`, message: 'hi' } }), /email/],
      [lead({ contact: { email: 'jo@home.example' } }), /message/],
      [lead({ contact: { email: 'jo@home.example', message: 'x'.repeat(2001) } }), /message/],
      [lead({ contact: { email: 'jo@home.example', message: 'hi', name: 'x'.repeat(121) } }), /name/],
      [lead({ contact: { email: 'jo@home.example', message: 'hi', phone: '1'.repeat(41) } }), /phone/],
      [lead({ listing: { office: 'OFF1' } }), /uniqueId/],
      [lead({ extra: 1 }), /unknown property "extra"/],
      [lead({ consent: false }), /consent must be true/],
      [{ ...lead(), consent: undefined }, /consent/],
    ];
    for (const [body, pattern] of bad) {
      const res = await submit(body);
      expect(res.status, JSON.stringify(body).slice(0, 100)).to.equal(400);
      expect(res.body.error).to.match(pattern);
    }
    expect((await submit(lead({ website: 'http://spam.example' }))).status).to.equal(403);
    expect((await submit(lead({ turnstileToken: undefined }))).body.error).to.match(/token is missing/);
    expect((await submit(lead({ turnstileToken: 'forged' }))).status).to.equal(403);
    verify.answer = { status: 500, body: {} };
    expect((await submit(lead())).status, 'fails closed').to.equal(403);
    verify.answer = { status: 200, body: { success: true } };

    expect((await admin(svc.url, 'POST', '/v1/admin/blocklist', { kind: 'domain', value: 'spam.example', reason: 'bots' })).status).to.equal(200);
    expect((await admin(svc.url, 'POST', '/v1/admin/blocklist', { kind: 'email', value: 'Bad@Home.example' })).status).to.equal(200);
    expect((await submit(lead({ contact: { email: 'a@mail.spam.example', message: 'hi' } }))).status).to.equal(403);
    expect((await submit(lead({ contact: { email: 'bad@home.example', message: 'hi' } }))).status).to.equal(403);

    expect((await submit(lead({ listing: { office: 'OFF1', uniqueId: 'NOPE' } }))).status).to.equal(404);
    expect((await submit(lead({ listing: { office: 'OFF1', uniqueId: 'GONE' } }))).status).to.equal(404);
    expect((await submit(lead({ listing: { office: 'OFF1', uniqueId: 'SOLD' } }))).status).to.equal(202);
  });

  it('refuses a honeypot holding only whitespace as a bot, and takes an empty one', async () => {
    const botChecks = async () => ((await (await admin(svc.url, 'GET', '/v1/admin/leads/refusals')).json()).byReason.bot_check ?? 0) as number;
    const before = await botChecks();
    const filled = [' ', '   ', '\t', '\n', '\r\n', ' \u00a0 ', '\u3000'];
    for (const website of filled) {
      const res = await submit(lead({ website }));
      expect(res.status, JSON.stringify(website)).to.equal(403);
      expect(res.body.error).to.equal('the submission was rejected');
    }
    // Counted as bot checks (written a moment after the answer).
    let counted = 0;
    for (let i = 0; i < 100 && counted < filled.length; i += 1) {
      counted = (await botChecks()) - before;
      if (counted < filled.length) await new Promise((r) => setTimeout(r, 50));
    }
    expect(counted).to.equal(filled.length);
    expect((await submit(lead({ website: '' }))).status).to.equal(202);
  });

  it('falls back to the office lead email, else dead-letters the lead', async () => {
    const dead = await submit(lead({ listing: { office: 'OFF1', uniqueId: 'NOMAIL' } }));
    expect(dead).to.deep.equal({ status: 202, body: { id: dead.body.id, status: 'dead_letter' } });
    expect((await admin(svc.url, 'PUT', '/v1/admin/offices/OFF1', { leadEmail: 'front-desk@agency.example' })).status).to.equal(200);
    expect((await admin(svc.url, 'PUT', '/v1/admin/offices/OFF1', { leadEmail: 'nope' })).status).to.equal(400);
    const routed = await submit(lead({ listing: { office: 'OFF1', uniqueId: 'NOMAIL' } }));
    expect(await statusOf(routed.body.id, 'delivered')).to.equal('delivered');
    expect(smtp.messages.some((m) => m.to[0] === 'front-desk@agency.example')).to.equal(true);
  });

  it('sends a lead to exactly one recipient: an agent email that is a list or carries a header is dropped with a warning', async () => {
    const many = Array.from({ length: 50 }, (_, i) => `v${i}@relay.example`).join(', ');
    const key = await activeKey(svc.db, ['OFF1']);
    const res = await pushFeed(
      svc.url,
      key,
      feed(
        listing('RELAY', { agentEmail: `a@agency.example, ${many}` }),
        listing('INJECT', { agentEmail: 'agent@agency.example&#13;&#10;Bcc: evil@relay.example' }),
      ),
    );
    const body = await res.json();
    expect(body.issues.filter((i: { code: string }) => i.code === 'invalid_email')).to.have.length(2);
    for (const id of ['RELAY', 'INJECT']) {
      const published = await (await fetch(`${svc.url}/v1/listings/OFF1/${id}`)).text();
      expect(published, id).to.not.include('relay.example');
      expect(JSON.parse(published).agents[0].email, id).to.equal(null);
    }
    // A record stored before addresses were checked still relays to no one but the one recipient.
    await svc.db.raw(`UPDATE listings SET data = jsonb_set(data, '{agents,0,email}', to_jsonb(?::text)) WHERE listing_key = 'OFF1/RELAY'`, [
      `a@agency.example, ${many}`,
    ]);
    expect((await admin(svc.url, 'PUT', '/v1/admin/offices/OFF1', { leadEmail: 'desk@agency.example, evil@relay.example' })).status).to.equal(400);
    const sent = smtp.messages.length;
    for (const id of ['RELAY', 'INJECT']) {
      const routed = await submit(lead({ listing: { office: 'OFF1', uniqueId: id } }));
      expect(await statusOf(routed.body.id, 'delivered'), id).to.equal('delivered');
    }
    const mails = smtp.messages.slice(sent);
    expect(mails.map((m) => m.to)).to.deep.equal([['front-desk@agency.example'], ['front-desk@agency.example']]);
    for (const m of mails) expect(m.raw).to.not.include('relay.example');
  });

  it('retries a temporary SMTP failure, fails on a permanent one, and lets an operator retry a failed lead', async () => {
    smtp.failNext(1, 451);
    const temporary = await submit(lead());
    expect(await statusOf(temporary.body.id, 'delivered')).to.equal('delivered');
    const row = await svc.db('leads').where({ id: temporary.body.id }).first();
    expect(row.attempts).to.equal(2);

    smtp.failNext(1, 550);
    const permanent = await submit(lead({ listing: { office: 'OFF1', uniqueId: 'BAD' } }));
    expect(await statusOf(permanent.body.id, 'failed')).to.equal('failed');
    expect((await svc.db('leads').where({ id: permanent.body.id }).first()).last_error).to.match(/550/);

    const failed = await (await admin(svc.url, 'GET', '/v1/admin/leads?status=failed')).json();
    expect(failed.leads.map((l: { id: string }) => l.id)).to.include(permanent.body.id);
    const retried = await admin(svc.url, 'POST', `/v1/admin/leads/${permanent.body.id}/retry`);
    expect(retried.status).to.equal(200);
    expect(await statusOf(permanent.body.id, 'delivered')).to.equal('delivered');
    expect((await admin(svc.url, 'POST', `/v1/admin/leads/${permanent.body.id}/retry`)).status).to.equal(409);
    expect((await admin(svc.url, 'POST', '/v1/admin/leads/00000000-0000-4000-8000-000000000000/retry')).status).to.equal(404);
    expect((await admin(svc.url, 'GET', '/v1/admin/leads?limit=201')).status).to.equal(400);
  });

  it('re-delivers a failed lead retried from Bull Board (the job runs again, not just turns green)', async () => {
    smtp.failNext(1, 550);
    const { body } = await submit(lead({ listing: { office: 'OFF1', uniqueId: 'BAD' } }));
    expect(await statusOf(body.id, 'failed')).to.equal('failed');
    const sent = smtp.messages.length;
    const res = await fetch(`${svc.url}/admin/queues/api/queues/lead-delivery/${encodeURIComponent(`lead-delivery-${body.id}~0`)}/retry`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${OPERATOR}` },
    });
    expect(res.status, await res.text()).to.equal(204);
    expect(await statusOf(body.id, 'delivered')).to.equal('delivered');
    expect(smtp.messages.length).to.equal(sent + 1);
  });

  it('never sends twice when a delivery job runs twice', async () => {
    const { body } = await submit(lead({ listing: { office: 'OFF1', uniqueId: 'SOLD' } }));
    expect(await statusOf(body.id, 'delivered')).to.equal('delivered');
    const before = smtp.messages.length;
    const mailer = createMailer({ smtpUrl: smtp.url, dataDir: svc.dataDir, from: 'x@y.example' });
    await deliverLead({ db: svc.db, mailer, logger: silentLogger }, `${body.id}~0`);
    await deliverLead({ db: svc.db, mailer, logger: silentLogger }, `${body.id}~0`);
    mailer.close();
    expect(smtp.messages.length).to.equal(before);
    expect(await claimLead(svc.db, body.id)).to.equal(null);
  });

  it('manages the blocklist: force for common providers and replacements, delete by id or by value', async () => {
    const common = await admin(svc.url, 'POST', '/v1/admin/blocklist', { kind: 'domain', value: 'gmail.com' });
    expect(common.status).to.equal(400);
    expect((await common.json()).error).to.match(/force/);
    expect((await admin(svc.url, 'POST', '/v1/admin/blocklist', { kind: 'domain', value: 'gmail.com', force: true })).status).to.equal(200);
    expect((await admin(svc.url, 'POST', '/v1/admin/blocklist', { kind: 'domain', value: 'spam.example' })).status).to.equal(409);
    const replaced = await (
      await admin(svc.url, 'POST', '/v1/admin/blocklist', { kind: 'domain', value: 'spam.example', reason: 'still bots', force: true })
    ).json();
    expect(replaced.reason).to.equal('still bots');
    for (const body of [
      { kind: 'ip', value: '1.2.3.4' },
      { kind: 'email', value: 'ab' },
      { kind: 'email', value: 'x'.repeat(255) },
      { kind: 'email', value: 'a@b.c', reason: 'x'.repeat(201) },
    ]) {
      expect((await admin(svc.url, 'POST', '/v1/admin/blocklist', body)).status, JSON.stringify(body).slice(0, 60)).to.equal(400);
    }
    const list = await (await admin(svc.url, 'GET', '/v1/admin/blocklist')).json();
    expect(list.entries.map((e: { value: string }) => e.value)).to.include.members(['gmail.com', 'spam.example', 'bad@home.example']);
    expect((await admin(svc.url, 'DELETE', '/v1/admin/blocklist', { id: replaced.id })).status).to.equal(200);
    expect((await admin(svc.url, 'DELETE', '/v1/admin/blocklist', { kind: 'domain', value: 'GMAIL.com' })).status).to.equal(200);
    expect((await admin(svc.url, 'DELETE', '/v1/admin/blocklist', { kind: 'domain', value: 'gmail.com' })).status).to.equal(404);
    expect((await admin(svc.url, 'DELETE', '/v1/admin/blocklist', { id: 'x'.repeat(65) })).status).to.equal(400);
    expect((await admin(svc.url, 'DELETE', '/v1/admin/blocklist', {})).status).to.equal(400);
    const stats = await (await admin(svc.url, 'GET', '/v1/admin/stats')).json();
    expect(stats.blocklist.entries).to.equal(1);
    expect(stats.leads.delivered).to.be.at.least(3);
  });

  it('purges leads past the retention: contact erased, status purged', async () => {
    const { body } = await submit(lead());
    await statusOf(body.id, 'delivered');
    await svc
      .db('leads')
      .where({ id: body.id })
      .update({ created_at: svc.db.raw("now() - interval '400 days'") });
    await svc.runtime.sweep();
    const row = await svc.db('leads').where({ id: body.id }).first();
    expect(row.status).to.equal('purged');
    expect(row.contact).to.deep.equal({ erased: true });
    expect(JSON.stringify(row)).not.to.contain('jo@home.example');
  });

  it('rate-limits submissions per client address (429)', async () => {
    const limited = await startTestService({ database: 'postgres', redis: true, db: svc.db, env: { LEAD_RATE_LIMIT: '2', SMTP_URL: smtp.url } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const res = await fetch(`${limited.url}/v1/leads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(lead()) });
        statuses.push(res.status);
        if (res.status === 429) expect((await res.json()).error).to.match(/limit is 2 per hour/);
      }
      expect(statuses).to.deep.equal([202, 202, 429]);
    } finally {
      await limited.close();
    }
  });

  it('accepts a lead while Redis is away and delivers it once the sweep queues it', async () => {
    const proxy = await startTcpProxy(Number(new URL(redisUrl).port || 6379));
    const away = await startTestService({
      database: 'postgres',
      redis: true,
      db: svc.db,
      env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, SMTP_URL: smtp.url },
    });
    try {
      proxy.cut();
      const res = await fetch(`${away.url}/v1/leads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(lead()) });
      expect(res.status).to.equal(202);
      const { id } = await res.json();
      expect((await svc.db('leads').where({ id }).first()).status).to.equal('pending');
      proxy.resume();
      await svc
        .db('leads')
        .where({ id })
        .update({ updated_at: svc.db.raw("now() - interval '5 minutes'") });
      for (let i = 0; i < 40; i += 1) {
        const swept = await away.runtime.sweep().then(
          () => true,
          () => false,
        );
        if (swept) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(await statusOf(id, 'delivered')).to.equal('delivered');
    } finally {
      await away.close();
      await proxy.close();
    }
  });
});
