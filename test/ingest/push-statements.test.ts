import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { FEED_WAIT_POLLS } from '../../api/wait-for-feed.js';
import { feed } from '../helpers.js';
import { startTestService, type TestService } from '../service.js';
import { activeKey, directorySettled, listingWithoutAddress, officeListing, pushFeed } from './client.js';

/**
 * What a small push costs the database: every statement is a round trip (on PostgreSQL) or a turn
 * of the one thread (embedded), so the path must not run statements whose answer it already has.
 */
for (const setup of [
  { name: 'embedded (PGlite, in-process queue)', database: 'pglite' as const, redis: false },
  { name: 'PostgreSQL and Redis', database: 'postgres' as const, redis: true },
]) {
  describe(`the statements of a 1-listing push: ${setup.name}`, function () {
    this.timeout(60_000);
    let svc: TestService;
    let key: string;
    let statements: string[];
    const record = (q: { sql: string }) => statements.push(q.sql);

    const polls = { ...FEED_WAIT_POLLS };
    before(async () => {
      // The wait's look at the feed (for an announcement missed) comes only after the test's
      // bound: however slowly the machine runs the feed, what answers the push is the announcement.
      Object.assign(FEED_WAIT_POLLS, { firstMs: 25_000, maxMs: 25_000 });
      svc = await startTestService({ database: setup.database, redis: setup.redis });
      key = await activeKey(svc.db, ['STMT1']);
      // The first push warms the path; the startup sweep (which looks at the outbox) is long over by its end.
      expect((await pushFeed(svc.url, key, feed(officeListing('STMT1', 'WARM')))).status).to.equal(200);
      await new Promise((r) => setTimeout(r, 300));
      svc.db.on('query', record);
    });
    after(async () => {
      svc.db.off('query', record);
      Object.assign(FEED_WAIT_POLLS, polls);
      await svc.close();
    });

    /** The statements run from the push until a little after its answer (the job's last steps follow the answer). */
    async function statementsOf(xml: string): Promise<{ status: number; body: any; statements: string[] }> {
      // An earlier push's last background steps (a change log reader's turn) can come late on a
      // busy machine, requests going first: they are over once 300 ms pass without a statement.
      statements = [];
      for (let seen = -1, i = 0; seen !== statements.length && i < 50; i += 1) {
        seen = statements.length;
        await new Promise((r) => setTimeout(r, 300));
      }
      statements = [];
      const res = await pushFeed(svc.url, key, xml);
      const body = await res.json();
      await new Promise((r) => setTimeout(r, 300));
      return { status: res.status, body, statements };
    }

    it('does not read back the feed it has just stored and queued: the announcement answers', async () => {
      const { status, body, statements } = await statementsOf(feed(officeListing('STMT1', 'A1')));
      expect(status, JSON.stringify(body)).to.equal(200);
      expect(body.summary).to.deep.include({ inserted: 1 });
      const readsOfTheEvent = statements.filter((sql) => /^select \* from "feed_events" where "id" = /.test(sql));
      expect(readsOfTheEvent, statements.join('\n')).to.deep.equal([]);
      // Whether the same push is still open is asked by the statement that stores it.
      const lookups = statements.filter((sql) => /^select \* from "feed_events"/.test(sql));
      expect(lookups, statements.join('\n')).to.deep.equal([]);
    });

    it("lets the change log's readers pass over the push's rows in the statement that numbers them, with no turn of their own", async () => {
      // No webhook endpoint, no saved search: neither the webhooks nor the alerts make anything of a new listing.
      const { status, statements } = await statementsOf(feed(officeListing('STMT1', 'A4')));
      expect(status).to.equal(200);
      expect(
        statements.filter((sql) => sql.includes('change_log_cursors')),
        statements.join('\n'),
      ).to.deep.equal([]);
    });

    it("finds the key's webhook endpoints for the feed's own event with the statement that finishes it", async () => {
      const { status, statements } = await statementsOf(feed(officeListing('STMT1', 'A5')));
      expect(status).to.equal(200);
      const finish = statements.find((sql) => /update "feed_events" set "status" = \$1, "result"/.test(sql));
      expect(finish, statements.join('\n')).to.include('webhook_endpoints');
      expect(
        statements.filter((sql) => /^select .* from "webhook_endpoints"/.test(sql)),
        statements.join('\n'),
      ).to.deep.equal([]);
    });

    it("marks the feed's offices stale in the directory with the statement that finishes it, and refreshes them after", async () => {
      const { status, body, statements } = await statementsOf(feed(officeListing('STMT1', 'A3')));
      expect(status).to.equal(200);
      const finish = statements.find((sql) => /update "feed_events" set "status" = \$1, "result"/.test(sql));
      expect(finish, statements.join('\n')).to.include('INSERT INTO directory_stale');
      await directorySettled(svc.db);
      // The office's row was rewritten by a transaction that began after the one that finished the feed.
      const { finished_at } = await svc.db('feed_events').where({ id: body.feedId }).first('finished_at');
      const { updated_at } = await svc.db('directory_offices').where({ office: 'STMT1' }).first('updated_at');
      expect(updated_at.getTime()).to.be.greaterThan(finished_at.getTime());
      const office = (await (await fetch(`${svc.url}/v1/offices?office=STMT1`)).json()).offices[0];
      expect(office.listingCount).to.equal(
        await svc
          .db('listings')
          .where({ office: 'STMT1', status: 'active' })
          .count({ n: '*' })
          .then(([r]) => Number(r.n)),
      );
    });

    it('refreshes, in the maintenance sweep, an office whose stale mark no refresh removed (its process stopped in between)', async () => {
      await directorySettled(svc.db);
      const listed = (await svc.db('directory_offices').where({ office: 'STMT1' }).first()).listing_count;
      // As a process stopped between a feed's answer and its refresh leaves it: rows not brought up to date, the mark still there.
      await svc.db('directory_offices').where({ office: 'STMT1' }).delete();
      await svc.db('directory_agents').where({ office: 'STMT1' }).delete();
      await svc.db('directory_stale').insert({ office: 'STMT1', since: svc.db.raw("now() - interval '1 minute'") });
      await svc.runtime.sweep();
      expect((await svc.db('directory_offices').where({ office: 'STMT1' }).first())?.listing_count).to.equal(listed);
      expect(
        await svc
          .db('directory_stale')
          .count({ n: '*' })
          .then(([r]) => Number(r.n)),
      ).to.equal(0);
    });

    it('looks at the mail outbox only when the feed queued mail', async () => {
      const clean = await statementsOf(feed(officeListing('STMT1', 'A2')));
      expect(clean.status).to.equal(200);
      expect(
        clean.statements.some((sql) => sql.includes('"feed_events"')),
        'the statements were recorded',
      ).to.equal(true);
      expect(
        clean.statements.filter((sql) => sql.includes('notifications')),
        clean.statements.join('\n'),
      ).to.deep.equal([]);

      // A feed with an invalid listing queues a mail, and the job sends it at once.
      const invalid = await statementsOf(feed(listingWithoutAddress('STMT1', 'BAD')));
      expect(invalid.status).to.equal(200);
      expect(invalid.body.counts).to.deep.include({ invalid: 1 });
      expect(invalid.statements.filter((sql) => /^insert into "notifications"/.test(sql))).to.have.length(1);
      expect(invalid.statements.filter((sql) => /^select \* from "notifications"/.test(sql)).length).to.be.greaterThan(0);
      const mail = await svc.db('notifications').where({ kind: 'invalid_listings' }).first();
      expect(mail, 'the mail was queued').to.not.equal(undefined);
      // Without SMTP_URL a mail is sent by writing it under DATA_DIR/outbox.
      expect(mail.status).to.equal('sent');
      expect(readdirSync(join(svc.dataDir, 'outbox')).filter((f) => f.endsWith('.eml'))).to.have.length(1);
    });
  });
}
