import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_EVENT_SCHEMA } from '../../api/schemas/webhook-events.js';
import { validatorFor } from '../../api/validators.js';
import { enquirableListing, insertLead, leadRecipient, purgeLeads } from '../../db/leads.js';
import { webhookPayload } from '../../workers/webhooks/webhook-events.js';
import { feed, eventually as waitFor } from '../helpers.js';
import { activeKey, admin, officeListing, pushFeed } from '../ingest/client.js';
import type { TestService } from '../service.js';
import type { SmtpSink } from '../smtp-sink.js';
import type { Receiver } from '../webhooks/receiver.js';
import { type LeadRig, startLeadRig } from './lead-rig.js';

for (const setup of [
  { name: 'PostgreSQL with BullMQ workers', options: { database: 'postgres', redis: true } },
  { name: 'the embedded default', options: { database: 'pglite' } },
] as const) {
  describe(`Leads for the CRM: lead.created and the key's lead API (${setup.name})`, function () {
    this.timeout(90_000);
    let rig: LeadRig;
    let svc: TestService;
    let smtp: SmtpSink;
    let receiver: Receiver;
    /** OFFA's key (OFFA and OFFA2), a second key of OFFA's, OFFB's key. */
    let keyA: string;
    let keyA2: string;
    let keyB: string;

    const call = async (path: string, as: string) => {
      const res = await fetch(`${svc.url}${path}`, { headers: { authorization: `Bearer ${as}` } });
      return { status: res.status, body: (await res.json()) as any };
    };
    const register = async (as: string, path: string, events?: string[]) => {
      const res = await fetch(`${svc.url}/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${receiver.url}${path}`, events }),
      });
      expect(res.status).to.equal(201);
      return (await res.json()) as { endpoint: { id: string }; secret: string };
    };
    const contact = (n: string) => ({
      email: `jo.${n}@home.example`,
      message: `Enquiry ${n}: is it still available?`,
      name: `Jo ${n}`,
      phone: `0400 000 ${n}`,
    });
    const submit = async (office: string, uniqueId: string, who: Record<string, string>) => {
      const res = await fetch(`${svc.url}/v1/leads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ listing: { office, uniqueId }, contact: who, consent: true }),
      });
      expect(res.status).to.equal(202);
      return ((await res.json()) as { id: string }).id;
    };
    const keyIdOf = async (as: string) => (await call('/v1/feeds/whoami', as)).body.keyId as string;

    before(async () => {
      rig = await startLeadRig(setup.options);
      ({ svc, smtp, receiver } = rig);
      keyA = await activeKey(svc.db, ['OFFA', 'OFFA2']);
      keyA2 = await activeKey(svc.db, ['OFFA']);
      keyB = await activeKey(svc.db, ['OFFB']);
      expect((await pushFeed(svc.url, keyA, feed(officeListing('OFFA', 'A1', { headline: 'Sunny cottage' }), officeListing('OFFA2', 'A2')))).status).to.equal(
        200,
      );
      expect((await pushFeed(svc.url, keyB, feed(officeListing('OFFB', 'B1')))).status).to.equal(200);
      for (const office of ['OFFA', 'OFFA2', 'OFFB'])
        expect((await admin(svc.url, 'PUT', `/v1/admin/offices/${office}`, { leadEmail: `leads@${office.toLowerCase()}.example` })).status).to.equal(200);
    });
    after(() => rig.close());

    it("sends lead.created, signed, with ids only, to every subscribed endpoint of every active key of the lead's office; its keys read and acknowledge it", async () => {
      const a = await register(keyA, '/a', ['lead.created']);
      const a2 = await register(keyA2, '/a2'); // every event, by default
      await register(keyA, '/a-feeds', ['feed.completed']);
      await register(keyB, '/b', ['lead.created']);
      const revoked = await activeKey(svc.db, ['OFFA']);
      await register(revoked, '/revoked', ['lead.created']);
      await svc
        .db('feed_keys')
        .where({ id: await keyIdOf(revoked) })
        .update({ status: 'revoked' });

      const who = contact('101');
      const id = await submit('OFFA', 'A1', who);
      const [gotA] = await waitFor('the event at /a', () => receiver.on('/a').length > 0 && receiver.on('/a'));
      const [gotA2] = await waitFor('the event at /a2', () => receiver.on('/a2').length > 0 && receiver.on('/a2'));
      for (const [got, secret] of [
        [gotA, a.secret],
        [gotA2, a2.secret],
      ] as const) {
        const event = new Webhook(secret).verify(got.body, got.headers as Record<string, string>) as any;
        expect(event.type).to.equal('lead.created');
        const validate = validatorFor(WEBHOOK_EVENT_SCHEMA['lead.created']);
        expect(validate(event), JSON.stringify(validate.errors)).to.equal(true);
        expect(event.data).to.deep.equal({
          leadId: id,
          listingKey: 'OFFA/A1',
          office: 'OFFA',
          uniqueId: 'A1',
          createdAt: event.data.createdAt,
          leadUrl: `/v1/leads/${id}`,
        });
        for (const personal of Object.values(who)) expect(got.body).to.not.include(personal);
      }
      // The mail goes out as before.
      await waitFor('the lead mail', () => smtp.messages.some((m) => m.raw.includes('Enquiry 101')));
      // Another office's key, an endpoint not subscribed to it and a revoked key's hear nothing.
      await svc.runtime.sweep();
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.on('/b')).to.have.length(0);
      expect(receiver.on('/a-feeds')).to.have.length(0);
      expect(receiver.on('/revoked')).to.have.length(0);

      // The CRM fetches the lead with its key: in full, with the event's delivery to its endpoint.
      const read = await waitFor('the lead delivered on both paths', async () => {
        const r = await call(`/v1/leads/${id}`, keyA);
        return r.body.delivery?.email.status === 'delivered' && r.body.delivery.webhooks[0]?.status === 'delivered' && r;
      });
      expect(read.status).to.equal(200);
      const validate = validatorFor('FeedLead');
      expect(validate(read.body), JSON.stringify(validate.errors)).to.equal(true);
      expect(read.body).to.deep.include({
        id,
        listing: { listingKey: 'OFFA/A1', office: 'OFFA', uniqueId: 'A1', headline: read.body.listing.headline },
        contact: { name: who.name, email: who.email, phone: who.phone, message: who.message },
        consent: true,
      });
      expect(JSON.stringify(read.body.listing.headline)).to.include('Sunny cottage');
      expect(read.body.delivery.email).to.include({ status: 'delivered', recipient: 'leads@offa.example', recipientSource: 'office' });
      expect(read.body.delivery.webhooks.map((w: any) => [w.endpointId, w.deliveryId])).to.deep.equal([[a.endpoint.id, gotA.headers['webhook-id']]]);
      // The other key of the office reads it too; another office's key gets a 404, and never sees it listed.
      expect((await call(`/v1/leads/${id}`, keyA2)).status).to.equal(200);
      const refused = await call(`/v1/leads/${id}`, keyB);
      expect(refused.status).to.equal(404);
      expect(refused.body.error).to.be.a('string');
      expect((await call('/v1/leads', keyB)).body.leads.map((l: any) => l.id)).to.not.include(id);
      expect((await call(`/v1/leads?office=OFFA`, keyB)).body.leads).to.deep.equal([]);
      // Each read is in the audit log against the key.
      const audit = await svc.db('audit_log').where({ actor: `key:${await keyIdOf(keyA)}`, action: 'lead.read', target: id });
      expect(audit.length).to.be.greaterThan(0);

      // A CRM acknowledges it; the first acknowledgement is kept, another office's key cannot.
      const ack = async (as: string) => {
        const res = await fetch(`${svc.url}/v1/leads/${id}/ack`, { method: 'POST', headers: { authorization: `Bearer ${as}` } });
        return { status: res.status, body: (await res.json()) as any };
      };
      expect((await ack(keyB)).status).to.equal(404);
      const first = await ack(keyA2);
      expect(first.status).to.equal(200);
      expect(validatorFor('FeedLeadAck')(first.body)).to.equal(true);
      expect(first.body).to.include({ id, acknowledgedByThisKey: true, alreadyAcknowledged: false });
      const again = await ack(keyA);
      expect(again.body).to.deep.equal({ id, acknowledgedAt: first.body.acknowledgedAt, acknowledgedByThisKey: false, alreadyAcknowledged: true });
      expect((await call(`/v1/leads/${id}`, keyA)).body.delivery.crm).to.deep.equal({
        acknowledgedAt: first.body.acknowledgedAt,
        acknowledgedByThisKey: false,
      });
      expect(await svc.db('audit_log').where({ actor: `key:${await keyIdOf(keyA2)}`, action: 'lead.ack', target: id })).to.have.length(1);
    });

    it('pulls incrementally with since: each lead once, a late-committing one included, paged in one snapshot', async () => {
      const officeQuery = '?office=OFFA2';
      const first = await call(`/v1/leads${officeQuery}`, keyA);
      expect(first.status).to.equal(200);
      expect(validatorFor('FeedLeadPage')(first.body)).to.equal(true);
      const seen: string[] = first.body.leads.map((l: any) => l.id);
      let since: string = first.body.since;

      /** One pull since the last: every page, following next; returns the ids, newest first. */
      const pull = async (limit: number) => {
        const ids: string[] = [];
        let page = await call(`/v1/leads${officeQuery}&since=${encodeURIComponent(since)}&limit=${limit}`, keyA);
        const pullSince = page.body.since;
        for (;;) {
          expect(page.status, JSON.stringify(page.body)).to.equal(200);
          ids.push(...page.body.leads.map((l: any) => l.id));
          if (!page.body.next) break;
          page = await call(`/v1/leads${officeQuery}&cursor=${encodeURIComponent(page.body.next)}&limit=${limit}`, keyA);
          expect(page.body.since, 'every page of a pull gives the same since').to.equal(pullSince);
        }
        since = page.body.since;
        seen.push(...ids);
        return ids;
      };

      const five: string[] = [];
      for (let i = 0; i < 5; i += 1) five.push(await submit('OFFA2', 'A2', contact(`20${i}`)));
      expect(await pull(2), 'newest first, over three pages').to.deep.equal([...five].reverse());
      expect(await pull(2), 'nothing new').to.deep.equal([]);

      // A lead whose transaction began before another's and committed after it (PostgreSQL: the
      // embedded database has one connection, so its transactions cannot overlap).
      if (setup.options.database === 'postgres') {
        const listing = (await enquirableListing(svc.db, 'OFFA2', 'A2'))!;
        const recipient = await leadRecipient(svc.db, listing);
        let late = '';
        let release!: () => void;
        const held = new Promise<void>((r) => {
          release = r;
        });
        const trx = svc.db.transaction(async (t) => {
          late = (
            await insertLead(t, { listing, contact: contact('300'), recipient }, (data) => webhookPayload({ type: 'lead.created', data: { ...data } }), 900_000)
          ).id;
          await held;
        });
        await waitFor('the late lead written, not committed', () => late !== '');
        const early = await submit('OFFA2', 'A2', contact('301'));
        expect(await pull(2), 'the committed one only').to.deep.equal([early]);
        release();
        await trx;
        const lateRow = await svc.db('leads').where({ id: late }).first('created_at');
        const earlyRow = await svc.db('leads').where({ id: early }).first('created_at');
        expect(new Date(lateRow.created_at).getTime()).to.be.at.most(new Date(earlyRow.created_at).getTime());
        expect(await pull(2), 'the late one, though older than one already pulled').to.deep.equal([late]);
      }

      // A lead committed while a pull pages is not on its pages: the next pull has it.
      const page1 = await call(`/v1/leads${officeQuery}&limit=1`, keyA);
      const during = await submit('OFFA2', 'A2', contact('400'));
      const rest: string[] = [];
      let next = page1.body.next as string | null;
      while (next) {
        const page = await call(`/v1/leads${officeQuery}&limit=3&cursor=${encodeURIComponent(next)}`, keyA);
        expect(page.body.since).to.equal(page1.body.since);
        rest.push(...page.body.leads.map((l: any) => l.id));
        next = page.body.next;
      }
      expect([page1.body.leads[0].id, ...rest]).to.not.include(during);
      expect(new Set([page1.body.leads[0].id, ...rest]).size).to.equal(1 + rest.length);
      expect(await pull(2), 'the one committed during the paging').to.deep.equal([during]);
      expect(new Set(seen).size, 'no lead seen twice').to.equal(seen.length);
      const all = (await call(`/v1/leads${officeQuery}&limit=200`, keyA)).body.leads.map((l: any) => l.id);
      expect([...all].sort()).to.deep.equal([...seen].sort());
    });

    it('filters by office and status, refuses bad input, reads nothing with a revoked or suspended key, forgets purged leads, audits every read', async () => {
      const b = await submit('OFFB', 'B1', contact('500'));
      const a = await submit('OFFA', 'A1', contact('501'));
      const byOffice = await call('/v1/leads?office=OFFA', keyA);
      expect(byOffice.body.leads.every((l: any) => l.listing.office === 'OFFA')).to.equal(true);
      expect(byOffice.body.leads.map((l: any) => l.id)).to.include(a);
      const listedB = await call('/v1/leads', keyB);
      expect(listedB.body.leads.map((l: any) => l.id)).to.deep.equal([b]);
      await waitFor('both mailed', async () => (await svc.db('leads').whereIn('id', [a, b]).where({ status: 'delivered' })).length === 2);
      expect((await call('/v1/leads?status=delivered', keyB)).body.leads.map((l: any) => l.id)).to.deep.equal([b]);
      expect((await call('/v1/leads?status=failed', keyB)).body.leads).to.deep.equal([]);

      for (const bad of ['?since=nonsense', '?cursor=e30', '?status=purged', '?limit=0', '?colour=red', `?since=x&cursor=y`]) {
        const res = await call(`/v1/leads${bad}`, keyB);
        expect(res.status, bad).to.equal(400);
        expect(res.body.error, bad).to.be.a('string');
      }
      expect((await call('/v1/leads/not-a-uuid', keyB)).status).to.equal(404);
      expect((await fetch(`${svc.url}/v1/leads`)).status).to.equal(401);

      const listAudit = await svc.db('audit_log').where({ actor: `key:${await keyIdOf(keyB)}`, action: 'lead.list' });
      expect(listAudit.some((e: any) => (typeof e.details === 'string' ? JSON.parse(e.details) : e.details).leadIds.includes(b))).to.equal(true);

      const keyBId = await keyIdOf(keyB);
      for (const status of ['suspended', 'revoked']) {
        await svc.db('feed_keys').where({ id: keyBId }).update({ status });
        expect((await call('/v1/leads', keyB)).status, status).to.equal(401);
        expect((await call(`/v1/leads/${b}`, keyB)).status, status).to.equal(401);
      }
      await svc.db('feed_keys').where({ id: keyBId }).update({ status: 'active' });

      await svc
        .db('leads')
        .where({ id: b })
        .update({ created_at: svc.db.raw("now() - interval '400 days'") });
      expect(await purgeLeads(svc.db, 365)).to.equal(1);
      expect((await call(`/v1/leads/${b}`, keyB)).status).to.equal(404);
      expect((await call('/v1/leads', keyB)).body.leads).to.deep.equal([]);
      expect((await fetch(`${svc.url}/v1/leads/${b}/ack`, { method: 'POST', headers: { authorization: `Bearer ${keyB}` } })).status).to.equal(404);
    });
  });
}
