import { expect } from 'chai';
import { validatorFor } from '../../api/validators.js';
import { feed } from '../helpers.js';
import { startTestService, type TestService } from '../service.js';
import { activeKey, admin, listingWithoutAddress, officeListing, pushFeed } from './client.js';

for (const setup of [
  { name: 'PostgreSQL with BullMQ workers', options: { database: 'postgres', redis: true } },
  { name: 'the embedded default', options: { database: 'pglite' } },
] as const) {
  describe(`A key's own feed history: GET /v1/feeds and /v1/feeds/{feedId}/issues (${setup.name})`, function () {
    this.timeout(60_000);
    let svc: TestService;
    let keyA: string;
    let keyB: string;
    const ids: Record<string, string> = {};
    const get = async (key: string, path: string) => {
      const res = await fetch(`${svc.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      return { status: res.status, body: (await res.json()) as any };
    };

    before(async () => {
      svc = await startTestService(setup.options);
      keyA = await activeKey(svc.db, ['HIST1']);
      keyB = await activeKey(svc.db, ['HIST2']);
      const push = async (name: string, key: string, xml: string) => {
        const res = await pushFeed(svc.url, key, xml);
        const body = (await res.json()) as { feedId?: string; error?: string };
        // A feed that is not well formed answers 400 with its id in the Location header.
        ids[name] = body.feedId ?? res.headers.get('location')!.split('/').pop()!;
        expect(ids[name], JSON.stringify(body)).to.match(/^[0-9a-f-]{36}$/);
      };
      await push('ok', keyA, feed(officeListing('HIST1', 'A1')));
      await push('invalid', keyA, feed(listingWithoutAddress('HIST1', 'BAD1'), officeListing('HIST1', 'A2'), listingWithoutAddress('HIST1', 'BAD2')));
      await push('broken', keyA, `${feed(officeListing('HIST1', 'A3')).slice(0, -10)}<oops`);
      await push('other', keyB, feed(officeListing('HIST2', 'B1')));
    });
    after(() => svc.close());

    it("lists the key's own feeds newest first, each with its outcome, counts and issue counts", async () => {
      const { status, body } = await get(keyA, '/v1/feeds');
      expect(status).to.equal(200);
      expect(validatorFor('FeedHistoryPage')(body), JSON.stringify(validatorFor('FeedHistoryPage').errors)).to.equal(true);
      expect(body.total).to.equal(3);
      expect(body.nextOffset).to.equal(null);
      expect(body.feeds.map((f: any) => f.feedId)).to.deep.equal([ids.broken, ids.invalid, ids.ok]);
      expect(body.feeds.map((f: any) => f.outcome)).to.deep.equal(['not_well_formed', 'with_invalid', 'ok']);
      const invalid = body.feeds[1];
      expect(invalid.counts).to.deep.equal({ parsed: 3, valid: 1, invalid: 2 });
      expect(invalid.issueCounts.errors).to.be.at.least(2);
      expect(invalid.statusUrl).to.equal(`/v1/feeds/${ids.invalid}`);
      expect(body.feeds[2].issueCounts).to.deep.equal({ errors: 0, warnings: body.feeds[2].issueCounts.warnings });
    });

    it('gives each feed by id the same outcome as the list, in the FeedStatus form', async () => {
      for (const [name, outcome] of [
        ['ok', 'ok'],
        ['invalid', 'with_invalid'],
        ['broken', 'not_well_formed'],
      ] as const) {
        const { status, body } = await get(keyA, `/v1/feeds/${ids[name]}`);
        expect(status).to.equal(200);
        expect(validatorFor('FeedStatus')(body), JSON.stringify(validatorFor('FeedStatus').errors)).to.equal(true);
        expect(body.outcome, name).to.equal(outcome);
      }
    });

    it("never shows another key's feeds, in the list or by id", async () => {
      const b = await get(keyB, '/v1/feeds');
      expect(b.body.feeds.map((f: any) => f.feedId)).to.deep.equal([ids.other]);
      expect((await get(keyB, `/v1/feeds/${ids.invalid}/issues`)).status).to.equal(404);
      expect((await get(keyB, `/v1/feeds/${ids.invalid}`)).status).to.equal(404);
      expect((await get(keyA, '/v1/feeds/not-a-uuid/issues')).status).to.equal(404);
    });

    it('filters by outcome and status, pages with limit and offset, and names a bad parameter', async () => {
      const problems = await get(keyA, '/v1/feeds?outcome=with_invalid');
      expect(problems.body.feeds.map((f: any) => f.feedId)).to.deep.equal([ids.invalid]);
      const needingALook = await get(keyA, '/v1/feeds?outcome=with_invalid,not_well_formed,tripped,failed');
      expect(needingALook.body.feeds.map((f: any) => f.feedId)).to.deep.equal([ids.broken, ids.invalid]);
      expect((await get(keyA, '/v1/feeds?outcome=ok,green')).status).to.equal(400);
      // Operators filter every key's feeds the same way.
      const operator = (await (await admin(svc.url, 'GET', '/v1/admin/feeds?outcome=not_well_formed,with_invalid')).json()) as any;
      expect(operator.feeds.map((f: any) => f.feedId)).to.deep.equal([ids.broken, ids.invalid]);
      expect((await get(keyA, '/v1/feeds?status=done')).body.total).to.equal(3);
      expect((await get(keyA, '/v1/feeds?status=failed')).body.total).to.equal(0);
      const first = await get(keyA, '/v1/feeds?limit=2');
      expect(first.body.feeds).to.have.length(2);
      expect(first.body.nextOffset).to.equal(2);
      const second = await get(keyA, '/v1/feeds?limit=2&offset=2');
      expect(second.body.feeds.map((f: any) => f.feedId)).to.deep.equal([ids.ok]);
      expect(second.body.nextOffset).to.equal(null);
      const bad = await get(keyA, '/v1/feeds?outcome=green');
      expect(bad.status).to.equal(400);
      expect(bad.body.error).to.include('outcome');
      expect((await get(keyA, '/v1/feeds?colour=red')).body.error).to.include('colour');
      expect((await fetch(`${svc.url}/v1/feeds`)).status).to.equal(401);
    });

    it("lists a feed's issues in feed order, numbered from 1 whatever the filters, with counts by level and code", async () => {
      const all = await get(keyA, `/v1/feeds/${ids.invalid}/issues`);
      expect(all.status).to.equal(200);
      expect(validatorFor('FeedIssuePage')(all.body), JSON.stringify(validatorFor('FeedIssuePage').errors)).to.equal(true);
      expect(all.body.feedId).to.equal(ids.invalid);
      expect(all.body.status).to.equal('done');
      const issues = all.body.issues as any[];
      expect(issues.map((i) => i.number)).to.deep.equal(issues.map((_, n) => n + 1));
      expect(all.body.total).to.equal(issues.length);
      expect(all.body.counts.errors + all.body.counts.warnings).to.equal(issues.length);
      const byCode: Record<string, number> = {};
      for (const i of issues) byCode[i.code] = (byCode[i.code] ?? 0) + 1;
      expect(all.body.counts.byCode).to.deep.equal(byCode);
      const errors = issues.filter((i) => i.level === 'error');
      expect(new Set(errors.map((i) => i.uniqueId))).to.deep.equal(new Set(['BAD1', 'BAD2']));

      const onlyErrors = await get(keyA, `/v1/feeds/${ids.invalid}/issues?level=error`);
      expect(onlyErrors.body.issues.map((i: any) => i.number)).to.deep.equal(errors.map((i) => i.number));
      expect(onlyErrors.body.counts, 'counts are over all issues').to.deep.equal(all.body.counts);
      const code = errors[0].code;
      const byOneCode = await get(keyA, `/v1/feeds/${ids.invalid}/issues?code=${code}&limit=1`);
      expect(byOneCode.body.total).to.equal(byCode[code]);
      expect(byOneCode.body.issues).to.have.length(1);
      expect(byOneCode.body.nextOffset).to.equal(byCode[code] > 1 ? 1 : null);
      expect((await get(keyA, `/v1/feeds/${ids.invalid}/issues?level=fatal`)).status).to.equal(400);
      expect((await get(keyA, `/v1/feeds/${ids.invalid}/issues?limit=1001`)).status).to.equal(400);

      const broken = await get(keyA, `/v1/feeds/${ids.broken}/issues?code=feed_not_well_formed`);
      expect(broken.body.total).to.equal(1);
      expect(broken.body.issues[0].level).to.equal('error');
    });

    it('answers a feed that is not well formed with its feedId and a Location header, not only inside the error text', async () => {
      const res = await pushFeed(svc.url, keyA, `${feed(officeListing('HIST1', 'A4')).slice(0, -10)}<oops`);
      const body = (await res.json()) as { error: string; feedId: string; statusUrl: string };
      expect(res.status).to.equal(400);
      expect(validatorFor('FeedError')(body)).to.equal(true);
      expect(body.feedId).to.match(/^[0-9a-f-]{36}$/);
      expect(body.statusUrl).to.equal(`/v1/feeds/${body.feedId}`);
      expect(res.headers.get('location')).to.equal(body.statusUrl);
      expect((await get(keyA, body.statusUrl)).body.result.issues.some((i: any) => i.code === 'feed_not_well_formed')).to.equal(true);
    });

    it('answers a feed not finished in time 202 with Retry-After and retryAfter, and lists it', async () => {
      // A second web role on the same data that waits for nothing and runs no jobs.
      const web = await startTestService({ ...setup.options, db: svc.db, consume: false, env: { FEED_SYNC_WAIT_MS: '0' } });
      try {
        const keyC = await activeKey(svc.db, ['HIST3']);
        const res = await pushFeed(web.url, keyC, feed(officeListing('HIST3', 'C1')));
        const body = (await res.json()) as { feedId: string; status: string; retryAfter: number; statusUrl: string };
        expect(res.status).to.equal(202);
        expect(validatorFor('FeedAccepted')(body)).to.equal(true);
        expect(body.status).to.be.oneOf(['queued', 'running']);
        expect(res.headers.get('retry-after')).to.equal('2');
        expect(body.retryAfter).to.equal(2);
        expect(res.headers.get('location')).to.equal(body.statusUrl);
        const listed = await get(keyC, '/v1/feeds');
        expect(listed.body.feeds.map((f: any) => f.feedId)).to.deep.equal([body.feedId]);
      } finally {
        await web.close();
      }
    });

    it("names the listing's uniqueId on an office_not_in_scope issue", async () => {
      const res = await pushFeed(svc.url, keyA, feed(officeListing('HIST1', 'A5'), officeListing('HIST2', 'NOT-MINE')));
      const body = (await res.json()) as { feedId: string };
      const issues = await get(keyA, `/v1/feeds/${body.feedId}/issues?code=office_not_in_scope`);
      expect(issues.body.issues.map((i: any) => [i.uniqueId, i.listingIndex])).to.deep.equal([['NOT-MINE', 1]]);
    });
  });
}
