import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { feed, eventually as waitFor } from '../helpers.js';
import { activeKey, admin, officeListing, pushFeed } from '../ingest/client.js';
import type { TestService } from '../service.js';
import type { SmtpSink } from '../smtp-sink.js';
import type { Receiver } from '../webhooks/receiver.js';
import { type LeadRig, startLeadRig } from './lead-rig.js';

/** The wait for a CRM's acknowledgement in these tests; the clock is moved past it rather than waited out. */
const WAIT_MS = 120_000;

for (const setup of [
  { name: 'PostgreSQL with BullMQ workers', options: { database: 'postgres', redis: true } },
  { name: 'the embedded default', options: { database: 'pglite' } },
] as const) {
  describe(`Lead delivery by office: email, CRM or both, with the mail as fallback (${setup.name})`, function () {
    this.timeout(90_000);
    let rig: LeadRig;
    let svc: TestService;
    let smtp: SmtpSink;
    let receiver: Receiver;
    /** The key of CRM1 (on CRM delivery), EMAIL1 (email only) and BARE1 (CRM delivery, no lead email). */
    let key: string;

    const call = async (path: string, init: RequestInit = {}) => {
      const res = await fetch(`${svc.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });
      return { status: res.status, body: (await res.json()) as any };
    };
    const submit = async (office: string, uniqueId: string, n: string) => {
      const res = await fetch(`${svc.url}/v1/leads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ listing: { office, uniqueId }, contact: { email: `jo.${n}@home.example`, message: `Enquiry ${n}` }, consent: true }),
      });
      const body = (await res.json()) as { id: string; status: string };
      expect(res.status, JSON.stringify(body)).to.equal(202);
      return body;
    };
    const operator = async (method: string, path: string, body?: unknown) => {
      const res = await admin(svc.url, method, path, body);
      return { status: res.status, body: (await res.json()) as any };
    };
    const mailed = (n: string) => smtp.messages.some((m) => m.raw.includes(`Enquiry ${n}`));
    const leadState = async (id: string) => (await call(`/v1/leads/${id}`)).body.delivery;
    /** Moves the lead's fallback time into the past (as the wait running out would) and runs the sweep. */
    const waitRunsOut = async (id: string) => {
      await svc
        .db('leads')
        .where({ id })
        .update({ fallback_at: svc.db.raw("now() - interval '1 second'") });
      await svc.runtime.sweep();
    };

    before(async () => {
      rig = await startLeadRig(setup.options, { LEAD_CRM_WAIT_MS: String(WAIT_MS) });
      ({ svc, smtp, receiver } = rig);
      key = await activeKey(svc.db, ['CRM1', 'EMAIL1', 'BARE1']);
      const keyless = await activeKey(svc.db, ['NOKEY1']);
      const pushed = await pushFeed(svc.url, key, feed(officeListing('CRM1', 'C1'), officeListing('EMAIL1', 'E1'), officeListing('BARE1', 'B1')));
      expect(pushed.status).to.equal(200);
      expect((await pushFeed(svc.url, keyless, feed(officeListing('NOKEY1', 'N1')))).status).to.equal(200);
      // NOKEY1's only key is revoked once its listing is in: no CRM can acknowledge its leads.
      await svc.db('feed_keys').whereRaw("'NOKEY1' = ANY(office_ids)").update({ status: 'revoked' });
      for (const [office, leadDelivery] of [
        ['CRM1', 'crm'],
        ['EMAIL1', 'email'],
        ['NOKEY1', 'crm'],
      ] as const) {
        const res = await operator('PUT', `/v1/admin/offices/${office}`, { leadEmail: `leads@${office.toLowerCase()}.example`, leadDelivery });
        expect(res.status).to.equal(200);
      }
      expect((await operator('PUT', '/v1/admin/offices/BARE1', { leadDelivery: 'crm' })).status).to.equal(200);
      const endpoint = await call('/v1/webhooks', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${receiver.url}/crm`, events: ['lead.created'] }),
      });
      expect(endpoint.status).to.equal(201);
    });
    after(() => rig?.close());

    it('sets an office’s delivery through the admin API, keeping what was not sent, and refuses what is not a choice', async () => {
      const office = await operator('GET', '/v1/admin/offices/CRM1');
      expect(office.status).to.equal(200);
      expect(validatorFor('OfficeOverview')(office.body)).to.equal(true);
      expect(office.body).to.include({ leadEmail: 'leads@crm1.example', leadDelivery: 'crm' });
      // BARE1 set only its delivery: no lead email was made up.
      expect((await operator('GET', '/v1/admin/offices/BARE1')).body).to.include({ leadEmail: null, leadDelivery: 'crm' });
      // Changing the email alone keeps the delivery.
      const changed = await operator('PUT', '/v1/admin/offices/CRM1', { leadEmail: 'leads@crm1.example' });
      expect(changed.body).to.deep.equal({ office: 'CRM1', leadEmail: 'leads@crm1.example', leadDelivery: 'crm' });
      expect(validatorFor('OfficeSettings')(changed.body)).to.equal(true);
      // An office that never chose delivers both ways, as before the choice existed.
      expect((await operator('PUT', '/v1/admin/offices/FRESH1', { leadEmail: 'leads@fresh1.example' })).body.leadDelivery).to.equal('both');
      for (const [body, names] of [
        [{}, 'leadEmail or leadDelivery'],
        [{ leadDelivery: 'fax' }, 'leadDelivery'],
        [{ leadDelivery: 'crm', colour: 'red' }, 'colour'],
      ] as const) {
        const refused = await operator('PUT', '/v1/admin/offices/CRM1', body);
        expect(refused.status, JSON.stringify(body)).to.equal(400);
        expect(refused.body.error).to.include(names);
      }
      const audit = await svc.db('audit_log').where({ action: 'office.lead_delivery', target: 'CRM1' });
      expect(audit.length).to.be.greaterThan(0);
    });

    it('on CRM delivery, tells the CRM and holds the mail; an acknowledgement in time means no mail at all', async () => {
      const lead = await submit('CRM1', 'C1', '501');
      expect(lead.status).to.equal('awaiting_crm');
      await waitFor('the lead.created event', () => receiver.on('/crm').some((r) => r.body.includes(lead.id)));
      const state = await leadState(lead.id);
      expect(state.mode).to.equal('crm');
      expect(state.email.status).to.equal('awaiting_crm');
      const created = new Date((await call(`/v1/leads/${lead.id}`)).body.createdAt).getTime();
      expect(new Date(state.email.fallbackAt).getTime() - created).to.be.within(WAIT_MS - 1000, WAIT_MS + 1000);
      await svc.runtime.sweep();
      expect(mailed('501'), 'not mailed while it waits').to.equal(false);

      const ack = await call(`/v1/leads/${lead.id}/ack`, { method: 'POST' });
      expect(ack.status).to.equal(200);
      await waitRunsOut(lead.id);
      const after = await leadState(lead.id);
      expect(after.email).to.include({ status: 'crm_acknowledged', fellBackAt: null, deliveredAt: null });
      expect(after.crm.acknowledgedAt).to.equal(ack.body.acknowledgedAt);
      await svc.runtime.sweep();
      await new Promise((r) => setTimeout(r, 300));
      expect(mailed('501'), 'an acknowledged lead is never mailed').to.equal(false);
    });

    it('on CRM delivery, mails the lead when no CRM acknowledged it within the wait, and says it fell back', async () => {
      const lead = await submit('CRM1', 'C1', '502');
      expect(lead.status).to.equal('awaiting_crm');
      await waitRunsOut(lead.id);
      await waitFor('the fallback mail', () => mailed('502'));
      const state = await waitFor('the mail recorded as delivered', async () => {
        const s = await leadState(lead.id);
        return s.email.status === 'delivered' && s;
      });
      expect(state.email.recipient).to.equal('leads@crm1.example');
      expect(state.email.fellBackAt).to.be.a('string');
      // The operator's list shows each path.
      const list = await operator('GET', '/v1/admin/leads?limit=50');
      expect(validatorFor('AdminLeadPage')(list.body)).to.equal(true);
      const row = list.body.leads.find((l: any) => l.id === lead.id);
      expect(row.delivery).to.include({ mode: 'crm', fellBackAt: state.email.fellBackAt, acknowledgedAt: null });
      expect(row.delivery.webhooks.delivered + row.delivery.webhooks.pending).to.equal(1);
      // A CRM acknowledging it afterwards is recorded, and the mail that went stays delivered.
      expect((await call(`/v1/leads/${lead.id}/ack`, { method: 'POST' })).status).to.equal(200);
      expect((await leadState(lead.id)).email.status).to.equal('delivered');
    });

    it('on CRM delivery without a recipient, dead-letters the lead when the wait runs out unacknowledged', async () => {
      const lead = await submit('BARE1', 'B1', '503');
      expect(lead.status).to.equal('awaiting_crm');
      await waitRunsOut(lead.id);
      const state = await leadState(lead.id);
      expect(state.email.status).to.equal('dead_letter');
      expect(state.email.lastError).to.include('no recipient');
    });

    it('mails at once an office on CRM delivery that no active key covers: no CRM could acknowledge it', async () => {
      const lead = await submit('NOKEY1', 'N1', '504');
      expect(lead.status).to.equal('pending');
      await waitFor('the mail', () => mailed('504'));
      const row = await svc.db('leads').where({ id: lead.id }).first('delivery', 'fell_back_at', 'fallback_at');
      expect(row.delivery).to.equal('crm');
      expect(row.fell_back_at).to.not.equal(null);
      expect(row.fallback_at).to.equal(null);
    });

    it('on email delivery, mails the lead and raises no lead.created event', async () => {
      const before = receiver.on('/crm').length;
      const lead = await submit('EMAIL1', 'E1', '505');
      expect(lead.status).to.equal('pending');
      await waitFor('the mail', () => mailed('505'));
      await svc.runtime.sweep();
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.on('/crm').length).to.equal(before);
      expect(receiver.on('/crm').some((r) => r.body.includes(lead.id))).to.equal(false);
      // The key still reads it: the choice is about pushes, not about what the office's CRM may fetch.
      const state = await leadState(lead.id);
      expect(state).to.deep.include({ mode: 'email', webhooks: [] });
      expect(state.email).to.include({ fallbackAt: null, fellBackAt: null });
    });

    it('counts enquiries for the owner: per listing over 7 and 30 days, and per office and listing per day for its key only', async () => {
      // Leads taken on earlier days (as they were stored then); every lead counts, whatever its delivery.
      const earlier = async (office: string, uniqueId: string, daysAgo: number) =>
        svc.db('leads').insert({
          id: crypto.randomUUID(),
          status: 'purged',
          listing_key: `${office}/${uniqueId}`,
          office,
          unique_id: uniqueId,
          contact: JSON.stringify({ erased: true }),
          created_at: svc.db.raw(`now() - make_interval(days => ?)`, [daysAgo]),
        });
      await earlier('CRM1', 'C1', 10);
      await earlier('CRM1', 'C1', 40);
      const own = await call('/v1/feeds/listings/CRM1/C1');
      expect(own.status).to.equal(200);
      expect(validatorFor('ListingStatus')(own.body)).to.equal(true);
      expect(own.body.enquiries).to.deep.equal({ last7Days: 2, last30Days: 3 });

      const stats = await call('/v1/feeds/stats');
      expect(stats.status, JSON.stringify(stats.body)).to.equal(200);
      const validate = validatorFor('EnquiryStats');
      expect(validate(stats.body), JSON.stringify(validate.errors)).to.equal(true);
      // The last 30 days by default: CRM1's 501, 502 and the one 10 days ago, BARE1's 503, EMAIL1's 505; NOKEY1 is not this key's.
      expect(stats.body.total).to.equal(5);
      const today = new Date().toISOString().slice(0, 10);
      expect(stats.body.to).to.equal(today);
      const byOffice = Object.fromEntries(stats.body.offices.map((o: any) => [o.office, o]));
      expect(Object.keys(byOffice).sort()).to.deep.equal(['BARE1', 'CRM1', 'EMAIL1']);
      expect(byOffice.CRM1.total).to.equal(3);
      expect(byOffice.CRM1.days).to.have.length(30);
      expect(byOffice.CRM1.days.at(-1)).to.deep.equal({ day: today, enquiries: 2 });
      expect(stats.body.listings[0]).to.include({ office: 'CRM1', uniqueId: 'C1', total: 3 });
      expect(stats.body.listings[0].days).to.have.length(2);
      expect(stats.body.listingsTruncated).to.equal(false);

      const fiftyDaysAgo = new Date(Date.now() - 50 * 86_400_000).toISOString().slice(0, 10);
      const wide = await call(`/v1/feeds/stats?from=${fiftyDaysAgo}&to=${today}&office=CRM1&listings=1`);
      expect(wide.body.total).to.equal(4);
      expect(wide.body.offices.map((o: any) => o.office)).to.deep.equal(['CRM1']);
      expect(wide.body.listings).to.have.length(1);
      // Another office's counts are not this key's: none.
      const other = await call('/v1/feeds/stats?office=NOKEY1');
      expect(other.body).to.deep.include({ total: 0, offices: [], listings: [] });

      for (const [q, says] of [
        ['from=2026-11-20&to=2026-11-10', 'after'],
        ['from=2026-13-01', 'from'],
        ['from=2024-01-01&to=2026-01-01', 'days apart'],
        ['listings=5000', 'listings'],
        ['colour=red', 'colour'],
      ]) {
        const refused = await call(`/v1/feeds/stats?${q}`);
        expect(refused.status, q).to.equal(400);
        expect(refused.body.error, q).to.include(says);
      }
    });
  });
}
