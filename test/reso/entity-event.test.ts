import { expect } from 'chai';
import { sequenceChanges } from '../../db/change-log.js';
import { resoRecord } from '../formats/documents.js';
import { AU_CONTEXT, feed } from '../helpers.js';
import { activeKey, admin, directorySettled, officeListing, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';
import { odataGet } from './odata-client.js';

/**
 * A replicator written from RESO's documents (RCP-027, EntityEvent; Web API Core) and nothing of
 * the service's code: it keeps a checkpoint, reads the events after it page by page, and fetches
 * each record an event names: 200 is the record to keep, 404 means delete your copy.
 */
class Replicator {
  checkpoint = 0;
  readonly records = new Map<string, unknown>();
  readonly seen: number[] = [];
  constructor(private readonly root: string) {}

  /** Reads every event after the checkpoint; returns how many. */
  async catchUp(): Promise<number> {
    let next: string | undefined =
      `${this.root}/EntityEvent?$filter=${encodeURIComponent(`EntityEventSequence gt ${this.checkpoint}`)}&$orderby=EntityEventSequence`;
    let read = 0;
    while (next) {
      const page = await odataGet(next, { prefer: 'odata.maxpagesize=7' });
      expect(page.status, JSON.stringify(page.body)).to.equal(200);
      for (const event of page.body.value as { EntityEventSequence: number; ResourceName: string; ResourceRecordKey: string; ResourceRecordUrl: string }[]) {
        expect(event.EntityEventSequence, 'sequence increases').to.be.greaterThan(this.checkpoint);
        this.seen.push(event.EntityEventSequence);
        const id = `${event.ResourceName}:${event.ResourceRecordKey}`;
        const record = await odataGet(event.ResourceRecordUrl);
        if (process.env.DEBUG_REPL) console.log(event, record.status);
        if (record.status === 404) this.records.delete(id);
        else {
          expect(record.status, JSON.stringify(record.body)).to.equal(200);
          this.records.set(id, record.body);
        }
        this.checkpoint = event.EntityEventSequence;
        read += 1;
      }
      next = page.body['@odata.nextLink'];
    }
    return read;
  }
}

for (const database of ['pglite', 'postgres'] as const) {
  describe(`RESO EntityEvent: the ordered change log (${database}${database === 'postgres' ? ' + Redis' : ''})`, function () {
    this.timeout(120_000);
    let svc: TestService;
    let key: string;
    before(async () => {
      svc = await startTestService({ database, redis: database === 'postgres', env: { CIRCUIT_BREAKER_MIN: '100' } });
      key = await activeKey(svc.db, ['OFF1', 'OFF2']);
    });
    after(() => svc.close());

    const reso = (doc: unknown) =>
      fetch(`${svc.url}/v1/feeds?format=reso&currency=AUD`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(doc),
      });
    const ok = async (res: Response | Promise<Response>) => {
      const answer = await res;
      const body = await answer.text();
      expect(answer.status, body).to.equal(200);
      return JSON.parse(body);
    };

    it('a replicator following EntityEvent ends with exactly the public set: inserts, updates, withdrawals, hiding, archives and withheld listings', async () => {
      const root = `${svc.url}/v1/reso`;
      const replicator = new Replicator(root);
      await ok(pushFeed(svc.url, key, feed(...Array.from({ length: 12 }, (_, i) => officeListing('OFF1', `A${i}`, { price: 400_000 + i })))));
      await ok(reso({ value: [resoRecord({ ListingKey: 'r1', ListOfficeKey: 'OFF2' }), resoRecord({ ListingKey: 'r2', ListOfficeKey: 'OFF2' })] }));

      const writes = (async () => {
        for (let round = 0; round < 4; round += 1) {
          const mod = `2024-04-0${round + 1}-10:00:00`;
          // new listings, a price change, a withdrawal
          await ok(
            pushFeed(
              svc.url,
              key,
              feed(
                officeListing('OFF1', `N${round}`, { modTime: mod }),
                officeListing('OFF1', `A${round}`, { modTime: mod, price: 700_000 + round }),
                officeListing('OFF1', `A${round + 4}`, { modTime: mod, status: 'withdrawn' }),
              ),
            ),
          );
          // an operator hides one, and shows an earlier one again
          await ok(admin(svc.url, 'POST', '/v1/admin/listings/visibility', { officeId: 'OFF1', uniqueId: `A${round + 8}`, hidden: true }));
          if (round > 0) await ok(admin(svc.url, 'POST', '/v1/admin/listings/visibility', { officeId: 'OFF1', uniqueId: `A${round + 7}`, hidden: false }));
        }
        // its source withholds one from the internet
        await ok(
          reso({
            value: [
              resoRecord({ ListingKey: 'r1', ListOfficeKey: 'OFF2', InternetEntireListingDisplayYN: false, ModificationTimestamp: '2024-06-01T00:00:00Z' }),
            ],
          }),
        );
        // a full feed that no longer carries A3 archives it
        const kept = ['A0', 'A1', 'A2', 'A8', 'A9', 'A10', 'A11', 'N0', 'N1', 'N2', 'N3'];
        await ok(
          pushFeed(svc.url, key, feed(...kept.map((id) => officeListing('OFF1', id, { modTime: '2024-05-01-10:00:00', price: 900_000 }))), {
            mode: 'full',
            context: AU_CONTEXT,
          }),
        );
      })();
      while (true) {
        const done = await Promise.race([writes.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 50))]);
        await replicator.catchUp();
        if (done) break;
      }
      await writes;
      await sequenceChanges(svc.db);
      await replicator.catchUp();

      // The public set, as RESO serves it, and as the database has it.
      const property = await odataGet(`${root}/Property?$select=ListingKey&$top=1000`);
      const publicKeys = (property.body.value as { ListingKey: string }[]).map((r) => `Property:${r.ListingKey}`).sort();
      const truth = await svc.db('listings').where({ is_shown: true }).whereIn('status', ['active', 'under_offer', 'sold', 'leased']).pluck('listing_key');
      expect(publicKeys).to.deep.equal(truth.map((k: string) => `Property:${k}`).sort());
      const replicated = [...replicator.records.keys()].filter((k) => k.startsWith('Property:')).sort();
      expect(replicated).to.deep.equal(publicKeys);
      // Removals reached the replica: withdrawn, hidden, withheld and archived listings are gone.
      for (const gone of ['OFF1/A4', 'OFF1/A11', 'OFF2/r1', 'OFF1/A3']) expect(replicator.records.has(`Property:${gone}`), gone).to.equal(false);
      // Agents and offices replicate the same way.
      const offices = await odataGet(`${root}/Office?$select=OfficeKey`);
      expect([...replicator.records.keys()].filter((k) => k.startsWith('Office:')).sort()).to.deep.equal(
        (offices.body.value as { OfficeKey: string }[]).map((o) => `Office:${o.OfficeKey}`).sort(),
      );
      // Each record's current version is what the replica holds.
      for (const k of replicated) {
        const now = await odataGet(`${root}/Property('${encodeURIComponent(k.slice('Property:'.length))}')`);
        expect(replicator.records.get(k)).to.deep.equal(now.body);
      }
    });

    it('numbers events in commit order: a transaction that wrote first but commits last is never behind a position already read', async () => {
      await ok(pushFeed(svc.url, key, feed(officeListing('OFF2', 'X'), officeListing('OFF2', 'Y'))));
      // The directory refresh that follows the feed's answer logs an Office change: sequenced before the start, not read as one of A's or B's.
      await directorySettled(svc.db);
      await sequenceChanges(svc.db);
      const reader = new Replicator(`${svc.url}/v1/reso`);
      await reader.catchUp();
      const start = reader.checkpoint;

      let release!: () => void;
      const held = new Promise<void>((r) => {
        release = r;
      });
      let wrote!: () => void;
      const written = new Promise<void>((r) => {
        wrote = r;
      });
      // A: changes X first and stays open.
      const first = svc.db.transaction(async (trx) => {
        await trx('listings').where({ listing_key: 'OFF2/X' }).update({ hidden: true });
        wrote();
        await held;
      });
      await written;
      // B: changes Y later and commits at once (on the embedded database it waits for A).
      const second = svc.db('listings').where({ listing_key: 'OFF2/Y' }).update({ hidden: true });
      // A read while A is open (on PostgreSQL; on the embedded database reads wait for A too).
      const during = (async () => {
        if (database === 'postgres') await second;
        await sequenceChanges(svc.db);
        await reader.catchUp();
        return [...reader.records.keys()];
      })();
      if (database === 'postgres') {
        await during;
        expect(reader.records.get('Property:OFF2/Y'), 'B is read while A is open').to.equal(undefined);
        expect(reader.seen.filter((s) => s > start)).to.have.length(1);
      }
      const checkpoint = reader.checkpoint;
      release();
      await first;
      await second;
      await during;
      await sequenceChanges(svc.db);
      await reader.catchUp();
      const after = reader.seen.filter((s) => s > start);
      // Both changes were read, each once, in increasing order; A's came after the position read while it was open.
      expect(after).to.have.length(2);
      expect([...after].sort((a, b) => a - b)).to.deep.equal(after);
      if (database === 'postgres') expect(after[1]).to.be.greaterThan(checkpoint);
      expect(reader.records.has('Property:OFF2/X')).to.equal(false);
      expect(reader.records.has('Property:OFF2/Y')).to.equal(false);
    });

    it('a checkpoint older than the window is told to replicate from scratch', async () => {
      await ok(pushFeed(svc.url, key, feed(officeListing('OFF2', 'W1'))));
      // The directory refresh follows the feed's answer and logs an Office change: it is sequenced
      // before the checkpoint is noted, not after it (where it was an event after the checkpoint).
      await directorySettled(svc.db);
      await sequenceChanges(svc.db);
      const [{ last_seq }] = await svc.db('change_log_head').select('last_seq');
      await svc.db('change_log').update({ sequenced_at: svc.db.raw("now() - interval '40 days'") });
      const { purgeChangeLog } = await import('../../db/change-log.js');
      await purgeChangeLog(svc.db, 30);
      const expired = await odataGet(`${svc.url}/v1/reso/EntityEvent?$filter=EntityEventSequence gt 0`);
      expect(expired.status).to.equal(410);
      expect(expired.body.error.message).to.match(/replicate from scratch/);
      const fresh = await odataGet(`${svc.url}/v1/reso/EntityEvent?$filter=${encodeURIComponent(`EntityEventSequence gt ${last_seq}`)}`);
      expect(fresh.status).to.equal(200);
      expect(fresh.body.value).to.deep.equal([]);
    });
  });
}
