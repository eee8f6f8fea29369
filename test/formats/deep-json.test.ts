import { expect } from 'chai';
import { storeFeedEvent } from '../../db/feed-bodies.js';
import { MAX_JSON_DEPTH } from '../../lib/json-depth.js';
import { AU_CONTEXT } from '../helpers.js';
import { AUD, activeKey } from '../ingest/client.js';
import { startTestService, type TestService } from '../service.js';
import { projectDoc, resoRecord } from './documents.js';

/** `"deep": [[[…]]]` nested `levels` deep as the text of a member, about 10 KB for 5,000 levels. */
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/** A RESO collection or a project document whose first record carries a member nested 5,000 deep. */
const DEEP = 5_000;
const deepDocuments = {
  reso: JSON.stringify({ value: [resoRecord()] }).replace(/}]}$/, `,"Deep":${nested(DEEP)}}]}`),
  project: JSON.stringify(projectDoc()).replace(/}]}$/, `,"deep":${nested(DEEP)}}]}`),
} as const;

const LIMIT = new RegExp(`nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep, the limit \\(line 1, column \\d+\\)`);

/**
 * RESO and project documents nested far deeper than any real one: refused before anything walks
 * them (a dry run 400, a push 400 with nothing stored), and a stored one (as an SFTP drop is) is
 * failed once by the worker as not readable, never retried. Before, each answered 500 (RangeError
 * in the control-character pass) and a stored one failed on every retry for minutes.
 */
describe('JSON feed documents nested deeper than the limit (PostgreSQL + Redis)', function () {
  this.timeout(60_000);
  let svc: TestService;
  let key: string;
  before(async () => {
    svc = await startTestService({ database: 'postgres', redis: true, ingestRetry: { attempts: 3, backoffMs: 50 } });
    key = await activeKey(svc.db, ['OFF1']);
  });
  after(() => svc.close());

  const send = (path: string, format: 'reso' | 'project', text: string, raw: boolean) =>
    fetch(raw ? `${svc.url}${path}?format=${format}&currency=AUD` : `${svc.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(path === '/v1/feeds' ? { authorization: `Bearer ${key}` } : {}) },
      body: raw ? text : JSON.stringify({ xml: text, format, context: AUD }),
    });
  const storedFeeds = async () => Number((await svc.db('feed_events').count({ n: '*' }))[0].n);

  for (const format of ['reso', 'project'] as const) {
    it(`a ${format} dry run answers 400 naming the depth limit, as a raw body and in a JSON feed request`, async () => {
      expect(deepDocuments[format].length).to.be.within(10_000, 11_000);
      for (const raw of [true, false]) {
        const res = await send('/v1/validate', format, deepDocuments[format], raw);
        const body = await res.json();
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(body.error).to.match(LIMIT);
      }
      // The same document a level within the limit is read as usual.
      const fine = JSON.stringify(format === 'reso' ? { value: [resoRecord({ Deep: JSON.parse(nested(MAX_JSON_DEPTH - 3)) })] } : projectDoc());
      const res = await send('/v1/validate', format, fine, true);
      expect(res.status, JSON.stringify(await res.clone().json())).to.equal(200);
    });

    it(`a ${format} push answers 400 naming the depth limit and stores nothing, as a raw body and in a JSON feed request`, async () => {
      const before = await storedFeeds();
      for (const raw of [true, false]) {
        const res = await send('/v1/feeds', format, deepDocuments[format], raw);
        const body = await res.json();
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(body.error).to.match(LIMIT);
        expect(body.error).to.match(/nothing was stored$/);
      }
      expect(await storedFeeds()).to.equal(before);
    });

    it(`a stored ${format} feed nested too deep (an SFTP drop) is failed once as not well-formed, never retried`, async () => {
      const event = await storeFeedEvent(
        svc.db,
        { source: 'sftp', keyId: null, officeScope: ['OFF1'], alertEmail: null, format, mode: 'incremental', context: { ...AU_CONTEXT }, bodyKind: 'bytes' },
        (async function* () {
          yield Buffer.from(deepDocuments[format]);
        })(),
      );
      await svc.runtime.ingestQueue.add(event.id);
      let row: { status: string; attempts: number; result: { ok: boolean; issues: { code: string; message: string }[] } | null } | undefined;
      for (let i = 0; i < 200; i += 1) {
        row = await svc.db('feed_events').where({ id: event.id }).first('status', 'attempts', 'result');
        if (row?.status === 'done' || row?.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(row?.status, JSON.stringify(row)).to.equal('done');
      expect(row?.attempts).to.equal(1);
      expect(row?.result?.ok).to.equal(false);
      const issue = row?.result?.issues.find((i) => i.code === 'feed_not_well_formed');
      expect(issue?.message).to.match(LIMIT);
    });
  }
});
