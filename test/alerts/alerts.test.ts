import { expect } from 'chai';
import { eventually, feed } from '../helpers.js';
import { activeKey, admin, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';
import { type ReceivedMail, type SmtpSink, startSmtpSink } from '../smtp-sink.js';

/** A REAXML listing of office ALR1 in a suburb, with bedrooms and a price (display="no" withholds it). */
function home(
  uniqueId: string,
  o: { suburb?: string; postcode?: string; beds?: number; price?: number; priceShown?: boolean; status?: string; headline?: string; mod?: string },
) {
  return (
    `<residential modTime="${o.mod ?? '2024-03-01-10:00:00'}" status="${o.status ?? 'current'}"><agentID>ALR1</agentID><uniqueID>${uniqueId}</uniqueID>` +
    `<headline>${o.headline ?? `Home ${uniqueId}`}</headline><description>Nice.</description>` +
    `<price display="${o.priceShown === false ? 'no' : 'yes'}">${o.price ?? 850000}</price><category name="House"/>` +
    `<features><bedrooms>${o.beds ?? 3}</bedrooms><bathrooms>1</bathrooms></features>` +
    `<images><img id="m" url="https://img.example/${uniqueId}.jpg"/></images>` +
    `<address><streetNumber>1</streetNumber><street>Main Road</street><suburb>${o.suburb ?? 'Fitzroy'}</suburb><state>VIC</state><postcode>${o.postcode ?? '3065'}</postcode></address></residential>`
  );
}

/** The mail's text with quoted-printable soft breaks and escapes undone (enough to read links and words). */
const decoded = (m: ReceivedMail) => m.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(Number.parseInt(h, 16)));
const header = (m: ReceivedMail, name: string) => new RegExp(`^${name}: (.*)$`, 'mi').exec(m.raw.replace(/\r?\n[ \t]+/g, ' '))?.[1] ?? null;

for (const setup of [
  { name: 'PostgreSQL with BullMQ workers', options: { database: 'postgres', redis: true } },
  { name: 'the embedded default', options: { database: 'pglite' } },
] as const) {
  describe(`Saved searches and alerts (${setup.name})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let smtp: SmtpSink;
    let key: string;
    let token: string;
    const buyer = `buyer.${setup.options.database}@home.example`;

    const subscribe = (body: Record<string, unknown>) =>
      fetch(`${svc.url}/v1/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const mailsTo = (address: string) => smtp.messages.filter((m) => m.to.includes(address));
    const alertsTo = (address: string) => mailsTo(address).filter((m) => header(m, 'List-Unsubscribe'));
    const push = async (...listings: string[]) => {
      const res = await pushFeed(svc.url, key, feed(...listings), { mode: 'incremental' });
      expect(res.status, await res.clone().text()).to.be.oneOf([200, 202]);
      const { feedId } = (await res.json()) as { feedId: string };
      await eventually('the feed done', async () => (await svc.db('feed_events').where({ id: feedId }).first('status'))?.status === 'done');
    };
    /** Every periodic task once (matching, composing and sending included). */
    const sweep = () => svc.runtime.sweep();

    before(async () => {
      smtp = await startSmtpSink();
      svc = await startTestService({
        ...setup.options,
        alertHoldMs: 0,
        maintenanceEveryMs: 300,
        env: {
          SMTP_URL: smtp.url,
          MAIL_FROM: 'alerts@service.example',
          ALERT_RATE_LIMIT: '1000',
          PUBLIC_BASE_URL: 'https://homes.example',
          ALERT_LISTING_URL: 'https://portal.example/l/{office}/{uniqueId}',
        },
      });
      key = await activeKey(svc.db, ['ALR1']);
    });
    after(async () => {
      await svc?.close();
      await smtp?.close();
    });

    it('refuses requests it cannot take, naming the problem', async () => {
      const base = { email: 'x@home.example', consent: true, search: { locality: 'Fitzroy' } };
      const cases: [Record<string, unknown>, number, RegExp][] = [
        [{ ...base, consent: false }, 400, /consent/],
        [{ ...base, search: { minBedrooms: 3 } }, 400, /needs a place/],
        [{ ...base, search: { locality: 'Fitzroy', sort: 'price' } }, 400, /body\.search\.sort is not an alert parameter/],
        [{ ...base, search: { locality: 'Fitzroy', minPrice: 900000, maxPrice: 100 } }, 400, /body\.search\.minPrice/],
        [{ ...base, search: { locality: 'Fitzroy', category: 'castle' } }, 400, /body\.search\.category "castle"/],
        [{ ...base, search: { locality: { nested: true } } }, 400, /body\.search/],
        [{ ...base, timeZone: 'Mars/Olympus' }, 400, /timeZone/],
        [{ ...base, frequency: 'hourly' }, 400, /frequency/],
        [{ ...base, website: ' ' }, 403, /rejected/],
      ];
      for (const [body, status, message] of cases) {
        const res = await subscribe(body);
        const answer = (await res.json()) as { error: string };
        expect(res.status, JSON.stringify(body)).to.equal(status);
        expect(answer.error).to.match(message);
      }
      expect(await svc.db('alert_subscriptions').count({ n: '*' }).first()).to.deep.equal({ n: setup.options.database === 'postgres' ? '0' : 0 });
    });

    it('mails nothing but a confirmation link before the address confirms (double opt-in)', async () => {
      const res = await subscribe({
        email: buyer,
        consent: true,
        search: { locality: ['Fitzroy'], category: 'residential', minBedrooms: 3, maxPrice: 900000, saleMode: 'sale' },
        timeZone: 'Australia/Melbourne',
      });
      expect(res.status).to.equal(202);
      expect(await res.json()).to.deep.equal({ status: 'confirmation_sent' });
      const confirm = await eventually('the confirmation mail', () => mailsTo(buyer).find((m) => /Confirm your listing alert/.test(decoded(m))));
      const link = /https:\/\/homes\.example\/alerts\/confirm\?token=([A-Za-z0-9_-]+)/.exec(decoded(confirm));
      expect(link, decoded(confirm)).to.not.equal(null);
      token = link![1];
      // A matching listing before confirmation: no alert.
      await push(home('EARLY', { headline: 'Early bird' }));
      await sweep();
      expect(alertsTo(buyer)).to.have.length(0);
      // The same request again while pending: the confirmation again, the subscription once.
      expect(
        (
          await subscribe({
            email: buyer.toUpperCase(),
            consent: true,
            search: { locality: ['Fitzroy'], category: 'residential', minBedrooms: 3, maxPrice: 900000, saleMode: 'sale' },
            timeZone: 'Australia/Melbourne',
          })
        ).status,
      ).to.equal(202);
      expect(Number((await svc.db('alert_subscriptions').count({ n: '*' }).first())!.n)).to.equal(1);
      // Opening the link changes nothing; its button confirms.
      const page = await fetch(`${svc.url}/alerts/confirm?token=${token}`);
      expect(page.status).to.equal(200);
      expect(await page.text())
        .to.include('Confirm your alert')
        .and.include('Fitzroy');
      expect((await svc.db('alert_subscriptions').first('status'))!.status).to.equal('pending');
      const confirmed = await fetch(`${svc.url}/alerts/confirm`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `token=${token}`,
      });
      expect(confirmed.status).to.equal(200);
      expect(await confirmed.text()).to.include('Your alert is on');
      const list = await fetch(`${svc.url}/v1/alerts?token=${token}`);
      const listed = (await list.json()) as { data: { status: string; frequency: string; search: Record<string, string>; description: string }[] };
      expect(listed.data).to.have.length(1);
      expect(listed.data[0]).to.include({ status: 'confirmed', frequency: 'instant' });
      expect(listed.data[0].search).to.deep.equal({ locality: 'Fitzroy', category: 'residential', minBedrooms: '3', maxPrice: '900000', saleMode: 'sale' });
    });

    it('mails new matching listings once, with their public price, photo and link, and never a withheld price', async () => {
      await push(
        home('MATCH', { headline: 'Sunny terrace', price: 850000 }),
        home('WITHHELD', { headline: 'Secret price', price: 800000, priceShown: false }),
        home('CARLTON', { headline: 'Elsewhere', suburb: 'Carlton', postcode: '3053' }),
        home('SMALL', { headline: 'Too small', beds: 2 }),
        home('DEAR', { headline: 'Too dear', price: 1500000 }),
      );
      const mail = await eventually('the alert', () => alertsTo(buyer)[0]);
      const text = decoded(mail);
      expect(text)
        .to.include('Sunny terrace')
        .and.include('$850,000')
        .and.include('https://portal.example/l/ALR1/MATCH')
        .and.include('https://img.example/MATCH.jpg');
      for (const absent of ['Secret price', 'Elsewhere', 'Too small', 'Too dear', 'Early bird', '800,000']) expect(text).to.not.include(absent);
      expect(header(mail, 'List-Unsubscribe')).to.equal(`<https://homes.example/v1/alerts/unsubscribe?token=${token}>`);
      expect(header(mail, 'List-Unsubscribe-Post')).to.equal('List-Unsubscribe=One-Click');
      expect(text).to.include(`https://homes.example/alerts/manage?token=${token}`);
      expect(text).to.match(/Content-Type: text\/html/i);
      // The same feed again changes nothing public: no second mail, however often the tasks run.
      await push(home('MATCH', { headline: 'Sunny terrace', price: 850000 }));
      await sweep();
      await sweep();
      expect(alertsTo(buyer)).to.have.length(1);
      // A matcher that reads the log again (its cursor lost) mails no change twice, and no change from before the confirmation.
      await svc.db('change_log_cursors').where({ name: 'alerts' }).update({ seq: 0 });
      await sweep();
      await sweep();
      expect(alertsTo(buyer)).to.have.length(1);
      expect(Number((await svc.db('change_log_cursors').where({ name: 'alerts' }).first('seq'))!.seq)).to.be.greaterThan(0);
    });

    it('mails a price drop with the price before it, and a listing back on the market', async () => {
      await push(home('MATCH', { headline: 'Sunny terrace', price: 820000, mod: '2024-03-02-10:00:00' }));
      const drop = await eventually('the price drop', () => alertsTo(buyer)[1]);
      expect(decoded(drop)).to.include('Price drop').and.include('$820,000').and.include('was $850,000');
      await push(home('MATCH', { headline: 'Sunny terrace', price: 820000, status: 'withdrawn', mod: '2024-03-03-10:00:00' }));
      await push(home('MATCH', { headline: 'Sunny terrace', price: 820000, mod: '2024-03-04-10:00:00' }));
      const back = await eventually('back on the market', () => alertsTo(buyer)[2]);
      expect(decoded(back)).to.include('Back on the market').and.include('Sunny terrace');
    });

    it('leaves out a listing that stopped being public before its mail went', async () => {
      // The mail server refuses every attempt until the operator has hidden the listing and an
      // attempt has ended since; then the next attempt has nothing left to send. However many
      // attempts a busy machine made meanwhile (five fail the row), the row is put back to pending.
      smtp.failNext(10_000, 451);
      await push(home('HIDEME', { headline: 'Soon hidden', price: 700000 }));
      const row = await eventually<{ id: string }>(
        'the failed attempt',
        async () => (await svc.db('notifications').where({ kind: 'alert' }).where('attempts', '>', 0).whereNot({ status: 'sent' }).first('id')) ?? null,
      );
      const hidden = await admin(svc.url, 'POST', '/v1/admin/listings/visibility', { officeId: 'ALR1', uniqueId: 'HIDEME', hidden: true });
      expect(hidden.status).to.equal(200);
      // An attempt under way may have written the mail before the listing was hidden: let it fail too.
      const attempts = async () => (await svc.db('notifications').where({ id: row.id }).first('attempts', 'status')) as { attempts: number; status: string };
      const seen = (await attempts()).attempts;
      await eventually('an attempt after the hiding', async () => {
        const now = await attempts();
        return now.attempts > seen || now.status === 'failed' || now.status === 'skipped';
      });
      smtp.failNext(0, 250);
      await svc.db('notifications').where({ id: row.id }).whereNot({ status: 'skipped' }).update({ status: 'pending', attempts: 0 });
      await eventually('the row skipped', async () => (await svc.db('notifications').where({ id: row.id, status: 'skipped' }).first()) ?? null);
      expect(alertsTo(buyer).map(decoded).join('\n')).to.not.include('Soon hidden');
    });

    it('sends a daily alert once a day with everything that matched', async () => {
      const daily = `daily.${setup.options.database}@home.example`;
      expect((await subscribe({ email: daily, consent: true, search: { postcode: '3065' }, frequency: 'daily', timeZone: 'Europe/Paris' })).status).to.equal(
        202,
      );
      const confirm = await eventually('the confirmation', () => mailsTo(daily)[0]);
      const dailyToken = /token=([A-Za-z0-9_-]+)/.exec(decoded(confirm))![1];
      const res = await fetch(`${svc.url}/v1/alerts/confirm`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: dailyToken }),
      });
      expect(res.status).to.equal(200);
      const row = await svc.db('alert_subscriptions').where({ email_key: daily }).first('next_digest_at');
      const at = new Date(row.next_digest_at);
      // 07:00 in Paris is 05:00 or 06:00 UTC, within the next day.
      expect([5, 6]).to.include(at.getUTCHours());
      expect(at.getTime() - Date.now()).to.be.within(0, 24 * 3_600_000);
      await push(home('D1', { headline: 'Digest one', mod: '2024-03-05-10:00:00' }), home('D2', { headline: 'Digest two', mod: '2024-03-05-10:00:00' }));
      await sweep();
      expect(alertsTo(daily)).to.have.length(0);
      await svc
        .db('alert_subscriptions')
        .where({ email_key: daily })
        .update({ next_digest_at: svc.db.raw("now() - interval '1 second'") });
      const digest = await eventually('the digest', () => alertsTo(daily)[0]);
      expect(decoded(digest)).to.include('Digest one').and.include('Digest two');
      await sweep();
      expect(alertsTo(daily)).to.have.length(1);
      const moved = await svc.db('alert_subscriptions').where({ email_key: daily }).first('next_digest_at');
      expect(new Date(moved.next_digest_at).getTime()).to.be.greaterThan(Date.now());
    });

    it('unsubscribes in one click from the List-Unsubscribe header, after which nothing is mailed', async () => {
      const mail = alertsTo(buyer)[0];
      const url = header(mail, 'List-Unsubscribe')!.slice(1, -1).replace('https://homes.example', svc.url);
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
      expect(res.status).to.equal(200);
      expect((await fetch(`${svc.url}/v1/alerts?token=${token}`)).status).to.equal(404);
      const before = alertsTo(buyer).length;
      await push(home('AFTER', { headline: 'After unsubscribing', mod: '2024-03-06-10:00:00' }));
      await sweep();
      await sweep();
      expect(alertsTo(buyer)).to.have.length(before);
      const stats = await admin(svc.url, 'GET', '/v1/admin/alerts?days=2');
      const body = (await stats.json()) as { subscriptions: Record<string, number>; days: { sent: number; unsubscribed: number; confirmed: number }[] };
      expect(stats.status).to.equal(200);
      expect(body.subscriptions).to.include({ confirmed: 1, daily: 1, instant: 0 });
      const today = body.days.at(-1)!;
      expect(today.unsubscribed).to.equal(1);
      expect(today.confirmed).to.equal(2);
      expect(today.sent).to.equal(alertsTo(buyer).length + alertsTo(`daily.${setup.options.database}@home.example`).length);
    });

    it('never mails an address that did not ask more than 3 confirmations, however often it is subscribed', async () => {
      const victim = `victim.${setup.options.database}@home.example`;
      for (let i = 0; i < 8; i += 1) {
        const res = await subscribe({ email: victim, consent: true, search: { locality: 'Fitzroy', minBedrooms: i % 5 } });
        expect(res.status).to.equal(202);
      }
      await eventually('three confirmations', () => mailsTo(victim).length === 3);
      await sweep();
      await sweep();
      expect(mailsTo(victim)).to.have.length(3);
      // Purged past their time: the unconfirmed requests go after 48 hours, and the allowance comes back.
      await svc
        .db('alert_subscriptions')
        .where({ email_key: victim })
        .update({ created_at: svc.db.raw("now() - interval '49 hours'") });
      await sweep();
      expect(Number((await svc.db('alert_subscriptions').where({ email_key: victim }).count({ n: '*' }).first())!.n)).to.equal(0);
    });

    it('lets a subscriber list and delete alerts by the token of any, and a blocked address gets none', async () => {
      const who = `many.${setup.options.database}@block.example`;
      for (const locality of ['Fitzroy', 'Carlton']) expect((await subscribe({ email: who, consent: true, search: { locality } })).status).to.equal(202);
      const tokens = await eventually('two confirmations', () => {
        const found = mailsTo(who).map((m) => /token=([A-Za-z0-9_-]+)/.exec(decoded(m))![1]);
        return found.length === 2 ? found : null;
      });
      const listed = (await (await fetch(`${svc.url}/v1/alerts?token=${tokens[0]}`)).json()) as { data: { id: string; search: { locality: string } }[] };
      expect(listed.data.map((s) => s.search.locality).sort()).to.deep.equal(['Carlton', 'Fitzroy']);
      const other = listed.data.find((s) => s.search.locality === 'Carlton')!;
      expect((await fetch(`${svc.url}/v1/alerts/${other.id}?token=${tokens[0]}`, { method: 'DELETE' })).status).to.equal(204);
      // Another address's token reaches nothing of this one's.
      expect((await fetch(`${svc.url}/v1/alerts/${listed.data[0].id}?token=lal_not-a-real-token-at-all`, { method: 'DELETE' })).status).to.equal(404);
      const blocked = await admin(svc.url, 'POST', '/v1/admin/blocklist', { kind: 'domain', value: 'block.example' });
      expect(blocked.status).to.equal(200);
      expect(Number((await svc.db('alert_subscriptions').where('email_key', 'like', '%@block.example').count({ n: '*' }).first())!.n)).to.equal(0);
      const refused = await subscribe({ email: who, consent: true, search: { locality: 'Fitzroy' } });
      expect(refused.status).to.equal(403);
    });
  });
}
