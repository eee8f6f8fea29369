import { expect } from 'chai';
import { feed } from '../helpers.js';
import { activeKey, officeListing, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';
import { odataGet, readAll } from './odata-client.js';

const PRELOADED = 300;

type Record = { ListingKey: string; ModificationTimestamp: string; ListPrice: number | null };

for (const database of ['pglite', 'postgres'] as const) {
  describe(`RESO Web API: replication by ModificationTimestamp while feeds keep arriving (${database})`, function () {
    this.timeout(180_000);
    let svc: TestService;
    let key: string;
    before(async () => {
      svc = await startTestService({ database });
      key = await activeKey(svc.db, ['OFF1']);
      // One feed writes them all in one transaction: hundreds of records share one timestamp.
      const first = Array.from({ length: PRELOADED }, (_, i) => officeListing('OFF1', `L${i}`, { price: 100_000 + i }));
      expect((await pushFeed(svc.url, key, feed(...first))).status).to.equal(200);
    });
    after(() => svc.close());

    it('ends with exactly the public set: nextLinks never skip or repeat records sharing a timestamp, and a pass from the checkpoint brings the rest', async () => {
      const root = `${svc.url}/v1/reso/Property`;
      const select = '$select=ListingKey,ModificationTimestamp,ListPrice';
      const writes = (async () => {
        for (let round = 0; round < 8; round += 1) {
          const added = Array.from({ length: 20 }, (_, i) => officeListing('OFF1', `N${round}-${i}`, { price: 200_000 + round * 100 + i }));
          const changed = Array.from({ length: 15 }, (_, i) =>
            officeListing('OFF1', `L${(round * 37 + i * 11) % PRELOADED}`, { price: 300_000 + round * 100 + i, modTime: `2024-04-0${round + 1}-10:00:00` }),
          );
          const res = await pushFeed(svc.url, key, feed(...added, ...changed));
          expect(res.status).to.equal(200);
          await new Promise((r) => setTimeout(r, 30));
        }
      })();

      const replica = new Map<string, Record>();
      let checkpoint = '';
      const seenInChain = new Map<string, string>();
      let next: string | undefined = `${root}?$orderby=ModificationTimestamp,ListingKey&${select}`;
      while (next) {
        const page = await odataGet(next, { prefer: 'odata.maxpagesize=25' });
        expect(page.status, JSON.stringify(page.body)).to.equal(200);
        for (const record of page.body.value as Record[]) {
          const earlier = seenInChain.get(record.ListingKey);
          // A record comes again only as a newer version, written while the chain was read.
          if (earlier !== undefined) expect(record.ModificationTimestamp > earlier, `${record.ListingKey} repeated`).to.equal(true);
          seenInChain.set(record.ListingKey, record.ModificationTimestamp);
          expect(record.ModificationTimestamp >= checkpoint, 'in order').to.equal(true);
          replica.set(record.ListingKey, record);
          checkpoint = record.ModificationTimestamp;
        }
        next = page.body['@odata.nextLink'];
        await new Promise((r) => setTimeout(r, 10));
      }
      await writes;
      // The next pass takes up from the checkpoint (ge: records sharing it are read again, harmlessly).
      const rest = await readAll(
        `${root}?$filter=${encodeURIComponent(`ModificationTimestamp ge ${checkpoint}`)}&$orderby=ModificationTimestamp,ListingKey&${select}`,
        {
          prefer: 'odata.maxpagesize=40',
        },
      );
      for (const record of rest.records as Record[]) replica.set(record.ListingKey, record);

      const truth = await svc.db('listings').where({ is_public: true }).select('listing_key');
      expect(truth).to.have.length(PRELOADED + 8 * 20);
      expect([...replica.keys()].sort()).to.deep.equal(truth.map((r: { listing_key: string }) => r.listing_key).sort());
      const now = await readAll(`${root}?${select}`, { prefer: 'odata.maxpagesize=1000' });
      for (const record of now.records as Record[]) expect(replica.get(record.ListingKey), record.ListingKey).to.deep.equal(record);
    });

    it('$orderby never changes which records match: right after a write, the count is the same in any order', async () => {
      const res = await pushFeed(svc.url, key, feed(officeListing('OFF1', 'C1', { price: 123_456 }), officeListing('OFF1', 'C2', { price: 123_457 })));
      expect(res.status).to.equal(200);
      const filter = `$filter=${encodeURIComponent('ListPrice ge 123456 and ListPrice le 123457')}&$count=true&$select=ListingKey`;
      const unordered = await odataGet(`${svc.url}/v1/reso/Property?${filter}`);
      const ordered = await odataGet(`${svc.url}/v1/reso/Property?${filter}&$orderby=ModificationTimestamp`);
      expect(unordered.body['@odata.count']).to.equal(2);
      expect(ordered.body['@odata.count']).to.equal(2);
      expect(ordered.body.value.map((r: Record) => r.ListingKey).sort()).to.deep.equal(['OFF1/C1', 'OFF1/C2']);
    });

    if (database === 'postgres') {
      it('a record stamped by a transaction still open is not skipped: later records wait for it, and then it comes first', async () => {
        expect((await pushFeed(svc.url, key, feed(officeListing('OFF1', 'H1'), officeListing('OFF1', 'H2')))).status).to.equal(200);
        const root = `${svc.url}/v1/reso/Property`;
        const byTime = `${root}?$orderby=ModificationTimestamp,ListingKey&$select=ListingKey,ModificationTimestamp&$top=1000`;
        let release!: () => void;
        const held = new Promise<void>((r) => {
          release = r;
        });
        let stamped!: () => void;
        const wasStamped = new Promise<void>((r) => {
          stamped = r;
        });
        // A stamps H1 and stays open; B stamps H2 later and commits.
        const first = svc.db.transaction(async (trx) => {
          await trx('listings')
            .where({ listing_key: 'OFF1/H1' })
            .update({ updated_at: trx.raw('change_stamp()') });
          stamped();
          await held;
        });
        await wasStamped;
        let during: Record[];
        try {
          await svc
            .db('listings')
            .where({ listing_key: 'OFF1/H2' })
            .update({ updated_at: svc.db.raw('change_stamp()') });
          during = (await readAll(byTime)).records as Record[];
        } finally {
          release();
          await first;
        }
        const stampH2 = (await svc.db('listings').where({ listing_key: 'OFF1/H2' }).first('updated_at')).updated_at as Date;
        // H2 had committed, but a record stamped before it (H1) could still commit: H2 was not served yet.
        expect(during.map((r) => r.ListingKey)).to.not.include('OFF1/H2');
        const checkpoint = during.at(-1)!.ModificationTimestamp;
        const rest = (
          await readAll(
            `${root}?$filter=${encodeURIComponent(`ModificationTimestamp ge ${checkpoint}`)}&$orderby=ModificationTimestamp,ListingKey&$select=ListingKey,ModificationTimestamp`,
          )
        ).records as Record[];
        const keys = rest.map((r) => r.ListingKey);
        expect(keys).to.include('OFF1/H1');
        expect(keys).to.include('OFF1/H2');
        expect(keys.indexOf('OFF1/H1')).to.be.lessThan(keys.indexOf('OFF1/H2'));
        expect(new Date(rest.find((r) => r.ListingKey === 'OFF1/H2')!.ModificationTimestamp).getTime()).to.equal(stampH2.getTime());
      });
    }
  });
}
