import { expect } from 'chai';
import { feed } from '../helpers.js';
import { activeKey, officeListing, pushFeed } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';
import { odataGet, readAll } from './odata-client.js';

const SETTLE_MS = 300;
const PRELOADED = 300;

type Record = { ListingKey: string; ModificationTimestamp: string; ListPrice: number | null };

for (const database of ['pglite', 'postgres'] as const) {
  describe(`RESO Web API: replication by ModificationTimestamp while feeds keep arriving (${database})`, function () {
    this.timeout(180_000);
    let svc: TestService;
    let key: string;
    before(async () => {
      svc = await startTestService({ database, env: { RESO_SETTLE_MS: String(SETTLE_MS) } });
      key = await activeKey(svc.db, ['OFF1']);
      // One feed writes them all in one transaction: hundreds of records share one timestamp.
      const first = Array.from({ length: PRELOADED }, (_, i) => officeListing('OFF1', `L${i}`, { price: 100_000 + i }));
      expect((await pushFeed(svc.url, key, feed(...first))).status).to.equal(200);
      // A read ordered by ModificationTimestamp leaves out the last SETTLE_MS of writes.
      await new Promise((r) => setTimeout(r, SETTLE_MS + 50));
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
      await new Promise((r) => setTimeout(r, SETTLE_MS + 100));
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
  });
}
